"""Handing memory freed after a large transient peak back to the system.

glibc's malloc keeps what a process frees in its heaps for later allocations, so the resident set stays at its peak:
loading MiniLM (onnxruntime's graph optimizer holds about 70 MB while it folds the weights) or building a 100k-chunk
index (every chunk's row and vector read at once) would keep a worker at its peak for good. `malloc_trim` returns the
free pages. Other C libraries (musl, macOS) have no such call and their processes simply keep what they keep.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    trim: Callable[[int], int] | None = getattr(libc, "malloc_trim", None)
    return trim


def release_free_memory() -> None:
    """Give the pages malloc holds free back to the system (glibc only; elsewhere nothing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
