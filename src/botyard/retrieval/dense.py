"""Exact dense search: one float32 matrix per model part per chatbot and a matrix-vector product over the
question's own part.

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

import numpy as np
import numpy.typing as npt

from botyard.embedding import Vectors, decode_vector, own_part


class DenseIndex:
    """The vectors of the chunks embedded by the current embedder; rows without a vector score -inf (never hits).

    Rows are only ever added at the end (a removed row is marked absent), so an update writes its new rows past the
    ones older indexes read, into room kept at the end of the matrices: they share them, and a change costs the
    new rows, not a copy of the whole (the room is renewed, by a copy, each time it runs out)."""

    def __init__(self, vectors: Sequence[bytes | None], parts: tuple[int, ...]) -> None:
        self.parts = parts
        """The vectors' parts, one per model (`Embedder.parts`): cosines are taken part by part."""
        self.length = len(vectors)
        self.present = np.zeros(len(vectors), dtype=bool)
        self.blocks = [np.zeros((len(vectors), width), dtype=np.float32) for width in parts]
        """One contiguous matrix per part (see the module), with room past `length` for rows to come."""
        self._filled = [self.length]
        """How many rows of the shared matrices hold vectors: the newest index's `length`."""
        self._fill(0, vectors)

    def _fill(self, start: int, vectors: Sequence[bytes | None]) -> None:
        dimension = sum(self.parts)
        bounds = list(itertools.pairwise(np.cumsum((0, *self.parts)).tolist()))
        for row, data in enumerate(vectors, start=start):
            if data is None:
                continue
            vector = decode_vector(data)
            if vector.shape == (dimension,):  # a vector of another size belongs to another model: ignore it
                for block, (begin, end) in zip(self.blocks, bounds, strict=True):
                    block[row] = vector[begin:end]
                self.present[row] = True

    def updated(self, removed: npt.NDArray[np.int64], vectors: Sequence[bytes | None]) -> DenseIndex:
        """A new index with the `removed` rows absent and `vectors` as new rows at the end; this one is unchanged."""
        new = copy.copy(self)
        new.length = self.length + len(vectors)
        capacity = self.blocks[0].shape[0] if self.blocks else 0
        if new.length > capacity or self._filled[0] != self.length:
            # Out of room, or another index already wrote past this one: new matrices, with room for an eighth more.
            room = new.length + new.length // 8
            new.blocks = [np.zeros((room, width), dtype=np.float32) for width in self.parts]
            for old, block in zip(self.blocks, new.blocks, strict=True):
                block[: self.length] = old[: self.length]
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
        return np.hstack([block[indices] for block in self.blocks])

    def scores(self, query: Vectors) -> npt.NDArray[np.float32]:
        """The cosine of every row with the (normalised) query vector, by the question's own model (the first part
        it has, as `embedding.similarities`); -inf for rows without a vector. A row without that part scores 0."""
        question = np.asarray(query, dtype=np.float32)
        scores = np.zeros(self.length, dtype=np.float32)
        if (part := own_part(question, self.parts)) is not None:
            start = sum(self.parts[:part])
            block = self.blocks[part][: self.length]
            scores = np.asarray(block @ question[start : start + self.parts[part]], dtype=np.float32)
        scores[~self.present] = -np.inf
        return scores
