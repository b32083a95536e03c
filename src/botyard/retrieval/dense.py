"""Exact dense search: one float16 matrix per model part per chatbot and a matrix-vector product over the
question's own part.

float16, not float32: half the memory (at 100k chunks 179 MB instead of 358 for MiniLM's and USE-m3's parts), and
simsimd's SIMD float16 dot products score a part faster than numpy's float32 BLAS does, since the product is bound by
reading the matrix. numpy has no fast float16 product (10x slower). The cosines move by about 2e-4 (rounding the
rows and simsimd's half-precision products), far below any difference between ranks that matters; measured on every
retrieval set (README, "Retrieval quality").

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

STORED = np.float16
"""How the vectors are held (see the module)."""

Stored = bytes | npt.NDArray[np.floating[Any]] | None
"""A row's vector as the index takes it: as stored in the database (`encode_vector`), as a vector (`held`), or None
(not embedded by the current embedder)."""


def held(data: bytes) -> npt.NDArray[np.float16]:
    """A stored vector as the index holds it: half the bytes, so rows read for a build hold no more than it."""
    return decode_vector(data).astype(STORED)


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
        self._filled = [self.length]
        """How many rows of the shared tail hold vectors (with the built ones): the newest index's `length`."""
        self._fill(0, vectors)

    def _fill(self, start: int, vectors: Sequence[Stored]) -> None:
        dimension = sum(self.parts)
        bounds = list(itertools.pairwise(np.cumsum((0, *self.parts)).tolist()))
        for row, data in enumerate(vectors, start=start):
            if data is None:
                continue
            vector = decode_vector(data) if isinstance(data, bytes) else data
            if vector.shape == (dimension,):  # a vector of another size belongs to another model: ignore it
                matrices, at = (self.blocks, row) if row < self.built else (self.tails, row - self.built)
                for matrix, (begin, end) in zip(matrices, bounds, strict=True):
                    matrix[at] = vector[begin:end]
                self.present[row] = True

    def updated(self, removed: npt.NDArray[np.int64], vectors: Sequence[Stored]) -> DenseIndex:
        """A new index with the `removed` rows absent and `vectors` as new rows at the end; this one is unchanged."""
        new = copy.copy(self)
        new.length = self.length + len(vectors)
        used, room = self.length - self.built, self.tails[0].shape[0] if self.tails else 0
        if new.length - self.built > room or self._filled[0] != self.length:
            # Out of room, or another index already wrote past this one: a new tail, with room to double.
            size = max(2 * (new.length - self.built), 64)
            new.tails = [np.zeros((size, width), dtype=STORED) for width in self.parts]
            for old, tail in zip(self.tails, new.tails, strict=True):
                tail[:used] = old[:used]
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
        gathered = []
        for block, tail in zip(self.blocks, self.tails, strict=True):
            part = np.empty((len(indices), block.shape[1]), dtype=np.float32)
            part[built] = block[indices[built]]
            part[~built] = tail[indices[~built] - self.built]  # float16 to float32 as they are copied
            gathered.append(part)
        return np.hstack(gathered)

    def scores(self, query: Vectors) -> npt.NDArray[np.float32]:
        """The cosine of every row with the (normalised) query vector, by the question's own model (the first part
        it has, as `embedding.similarities`); -inf for rows without a vector. A row without that part scores 0."""
        question = np.asarray(query, dtype=np.float32)
        scores = np.zeros(self.length, dtype=np.float32)
        if (part := own_part(question, self.parts)) is not None:
            start = sum(self.parts[:part])
            own = question[start : start + self.parts[part]].astype(STORED)
            _dot(self.blocks[part], own, scores[: self.built])
            _dot(self.tails[part][: self.length - self.built], own, scores[self.built :])
        scores[~self.present] = -np.inf
        return scores


def _dot(matrix: npt.NDArray[np.float16], vector: npt.NDArray[np.float16], out: npt.NDArray[np.float32]) -> None:
    """`out` = `matrix` @ `vector`, by simsimd (see the module); nothing for no rows (simsimd refuses them).

    Not simsimd's own `out=`: in 6.5 that path takes a reference to None it never had, once per call, and on Python
    3.11 (where None is not immortal) a server would crash once they add up (`tests/test_dense_index.py`)."""
    if len(matrix):
        out[:] = np.asarray(simsimd.cdist(vector[np.newaxis], matrix, metric="dot", out_dtype="float32"))[0]
