"""Botyard: a self-hostable chatbot management service."""

import os

# One BLAS thread, set before numpy is first imported (any entry point imports this package first). numpy's
# OpenBLAS otherwise runs a 10k x 384 matrix-vector product on every core and then keeps those threads spinning:
# measured here, 1.0 ms of wall time but 6.9 ms of CPU per product, against 1.6 ms and 1.6 ms with one thread. A
# server runs many searches at once, so CPU, not one search's latency, is what runs out. An explicit setting wins.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

__version__ = "0.1.0"
