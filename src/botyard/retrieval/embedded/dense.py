"""Exact dense search: one int8 matrix per model part per chatbot and a matrix-vector product over the question's
own part.

int8, not float32: a quarter of the memory (at 100k chunks 90 MB instead of 358 for MiniLM's and USE-m3's parts).
Each row's part is scaled so that its largest component is 127 and rounded; the question's part likewise, and
simsimd's SIMD int8 dot product (exact, in integers) times the two scales is the cosine, within about 2e-3. numpy
has no fast integer or float16 product (10x slower than its float32 BLAS), simsimd's is faster than that BLAS since
the product is bound by reading the matrix. Measured with bench/fusion_lab.py on every retrieval set: hybrid
nDCG@10 the same as float32's to the fourth decimal on all seven, dense within 0.002 (msmarco-5k .7967 -> .7961);
float16 was no better (hybrid the same, dense msmarco .7957). The offline answer probes answer and refuse exactly as
with float32.

Each part (`Embedder.parts`: MiniLM's 384 dimensions, USE-m3's 512) is a contiguous matrix of its own. In one matrix
of whole vectors a part is a strided slice, and its product with the question drags every row's other part through
the cache as well: at 100k chunks `scores` took 9.4 ms for an English question and 10.8 ms for a German one, against
6.8 and 8.6 ms with a matrix per part (numpy, this project's 2-core machine; at 10k chunks the difference is lost in
a whole search's 1.7 ms). Gathering the candidates' whole vectors (`rows`) reads each part's rows and joins them.

Exact, not approximate: an approximate index (HNSW) would add a build cost on every knowledge change and a recall
loss for no gain at this scale. Past a few hundred thousand chunks per chatbot the documented path is a vector
engine behind the `Retriever`.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import simsimd

from botyard.embedding import Vectors, decode_vector, own_part
from botyard.retrieval.knowledge import Stored

STORED = np.int8
"""How the vectors are held (see the module)."""
LEVELS = 127
"""A part's largest component is scaled to this (int8's largest)."""
FILL_BATCH = 4096
"""Rows quantised at once."""


def quantised(
    pieces: npt.NDArray[np.floating[Any]],
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """Rows of one part as int8 and each row's scale, which gives it back (`pieces` ~ int8 * scale); a row of zeros
    stays zeros."""
    matrix = np.atleast_2d(np.asarray(pieces, dtype=np.float32))
    scales = np.abs(matrix).max(axis=1, initial=0.0) / LEVELS
    scales[scales == 0.0] = 1.0
    return np.round(matrix / scales[:, np.newaxis]).astype(STORED), scales.astype(np.float32)


class DenseIndex:
    """The vectors of the chunks embedded by the current embedder; rows without a vector score -inf (never hits).

    Rows are only ever added at the end (a removed row is marked absent). The rows of the build are one matrix per
    part that never changes; rows added since live in a tail with room to grow, which an update writes past the rows
    older indexes read, so they share it: a change costs its own rows, and a copy of the tail (never of the built
    rows) each time the tail's room, doubled each time, runs out."""

    def __init__(self, vectors: Sequence[Stored], parts: tuple[int, ...]) -> None:
        self.parts = parts
        """The vectors' parts, one per model (`Embedder.parts`): cosines are taken part by part."""
        self.length = self.built = len(vectors)
        self.present = np.zeros(len(vectors), dtype=bool)
        self.blocks = [np.zeros((len(vectors), width), dtype=STORED) for width in parts]
        """The built rows: one contiguous matrix per part (see the module)."""
        self.tails = [np.zeros((0, width), dtype=STORED) for width in parts]
        """The rows added since the build, per part, with room past them."""
        self.scales = [np.ones(len(vectors), dtype=np.float32) for _ in parts]
        self.tail_scales = [np.ones(0, dtype=np.float32) for _ in parts]
        """Each row's scale per part (`quantised`), for the built rows and the tail's."""
        self._filled = [self.length]
        """How many rows of the shared tail hold vectors (with the built ones): the newest index's `length`."""
        self._fill(0, vectors)

    def _fill(self, start: int, vectors: Sequence[Stored]) -> None:
        """Rows `start`, `start + 1`... get `vectors`, quantised a batch at a time (a batch of float32 at once, not
        all of them)."""
        dimension = sum(self.parts)
        found = (
            (row, decode_vector(data) if isinstance(data, bytes) else data)
            for row, data in enumerate(vectors, start=start)
            if data is not None
        )
        usable = [(row, vector) for row, vector in found if vector.shape == (dimension,)]  # else another model's
        bounds = list(itertools.pairwise(np.cumsum((0, *self.parts)).tolist()))
        for first in range(0, len(usable), FILL_BATCH):
            batch = usable[first : first + FILL_BATCH]
            rows = np.array([row for row, _ in batch], dtype=np.int64)
            matrix = np.stack([vector for _, vector in batch])
            built, added = rows[rows < self.built], rows[rows >= self.built] - self.built
            for part, (begin, end) in enumerate(bounds):
                values, scales = quantised(matrix[:, begin:end])
                if len(built):  # a loaded snapshot's built rows are mapped read-only: never written to again
                    self.blocks[part][built], self.scales[part][built] = values[: len(built)], scales[: len(built)]
                if len(added):
                    self.tails[part][added] = values[len(built) :]
                    self.tail_scales[part][added] = scales[len(built) :]
            self.present[rows] = True

    def updated(self, removed: npt.NDArray[np.int64], vectors: Sequence[Stored]) -> DenseIndex:
        """A new index with the `removed` rows absent and `vectors` as new rows at the end; this one is unchanged."""
        new = copy.copy(self)
        new.length = self.length + len(vectors)
        used, room = self.length - self.built, self.tails[0].shape[0] if self.tails else 0
        if new.length - self.built > room or self._filled[0] != self.length:
            # Out of room, or another index already wrote past this one: a new tail, with room to double.
            size = max(2 * (new.length - self.built), 64)
            new.tails = [np.zeros((size, width), dtype=STORED) for width in self.parts]
            new.tail_scales = [np.ones(size, dtype=np.float32) for _ in self.parts]
            for old, tail in zip(self.tails, new.tails, strict=True):
                tail[:used] = old[:used]
            for old_scale, tail_scale in zip(self.tail_scales, new.tail_scales, strict=True):
                tail_scale[:used] = old_scale[:used]
            new._filled = [new.length]
        new._filled[0] = new.length
        new.present = np.concatenate([self.present, np.zeros(len(vectors), dtype=bool)])
        new.present[removed] = False
        new._fill(self.length, vectors)
        return new

    @property
    def count(self) -> int:
        """How many chunks have a usable vector."""
        return int(self.present.sum())

    def rows(self, indices: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """The whole vectors of these rows (all parts side by side, as stored)."""
        indices = np.asarray(indices, dtype=np.int64)
        built = indices < self.built
        old, added = indices[built], indices[~built] - self.built
        gathered = np.empty((len(indices), sum(self.parts)), dtype=np.float32)
        start = 0
        for block, tail, scale, tail_scale in zip(self.blocks, self.tails, self.scales, self.tail_scales, strict=True):
            part = gathered[:, start : start + block.shape[1]]
            # Through plain arrays: a loaded snapshot's blocks are memmaps, whose indexing is Python code.
            part[built] = np.asarray(block)[old] * np.asarray(scale)[old, np.newaxis]
            part[~built] = tail[added] * tail_scale[added, np.newaxis]
            start += block.shape[1]
        return gathered

    def scores(self, query: Vectors) -> npt.NDArray[np.float32]:
        """The cosine of every row with the (normalised) query vector, by the question's own model (the first part
        it has, as `embedding.similarities`); -inf for rows without a vector. A row without that part scores 0."""
        question = np.asarray(query, dtype=np.float32)
        scores = np.zeros(self.length, dtype=np.float32)
        if (part := own_part(question, self.parts)) is not None:
            start = sum(self.parts[:part])
            quantised_question, scales = quantised(question[start : start + self.parts[part]])
            own, scale = quantised_question[0], float(scales[0])
            added = self.length - self.built
            _dot(self.blocks[part], own, scores[: self.built])
            _dot(self.tails[part][:added], own, scores[self.built :])
            scores[: self.built] *= self.scales[part] * scale
            scores[self.built :] *= self.tail_scales[part][:added] * scale
        scores[~self.present] = -np.inf
        return scores


def _dot(matrix: npt.NDArray[np.int8], vector: npt.NDArray[np.int8], out: npt.NDArray[np.float32]) -> None:
    """`out` = `matrix` @ `vector`, by simsimd (see the module); nothing for no rows (simsimd refuses them).

    Not simsimd's own `out=`: in 6.5 that path takes a reference to None it never had, once per call, and on Python
    3.11 (where None is not immortal) a server would crash once they add up
    (`tests/retrieval/embedded/test_dense_index.py`)."""
    if len(matrix):
        out[:] = np.asarray(simsimd.cdist(vector[np.newaxis], matrix, metric="dot", out_dtype="float32"))[0]
