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

import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from botyard.embedding import Vectors, decode_vector, own_part


class DenseIndex:
    """The vectors of the chunks embedded by the current embedder; rows without a vector score -inf (never hits)."""

    def __init__(self, vectors: Sequence[bytes | None], parts: tuple[int, ...]) -> None:
        self.parts = parts
        """The vectors' parts, one per model (`Embedder.parts`): cosines are taken part by part."""
        dimension = sum(parts)
        self.present = np.zeros(len(vectors), dtype=bool)
        self.blocks = [np.zeros((len(vectors), width), dtype=np.float32) for width in parts]
        """One contiguous matrix per part (see the module)."""
        bounds = list(itertools.pairwise(np.cumsum((0, *parts)).tolist()))
        for row, data in enumerate(vectors):
            if data is None:
                continue
            vector = decode_vector(data)
            if vector.shape == (dimension,):  # a vector of another size belongs to another model: ignore it
                for block, (start, end) in zip(self.blocks, bounds, strict=True):
                    block[row] = vector[start:end]
                self.present[row] = True

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
        scores = np.zeros(len(self.present), dtype=np.float32)
        if (part := own_part(question, self.parts)) is not None:
            start = sum(self.parts[:part])
            scores = np.asarray(self.blocks[part] @ question[start : start + self.parts[part]], dtype=np.float32)
        scores[~self.present] = -np.inf
        return scores
