"""Exact dense search: one float32 matrix per chatbot and a matrix-vector product over the question's own part.

Exact, not approximate: at 100k chunks x 384 dimensions (MiniLM's part) the product takes about 9 ms in numpy, an
approximate index (HNSW) would add a build cost on every knowledge change and a recall loss for no gain at this
scale. Past a few hundred thousand chunks per chatbot the documented path is a vector engine behind the `Retriever`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from botyard.embedding import Vectors, cosines, decode_vector


class DenseIndex:
    """The vectors of the chunks embedded by the current embedder; rows without a vector score -inf (never hits)."""

    def __init__(self, vectors: Sequence[bytes | None], parts: tuple[int, ...]) -> None:
        self.parts = parts
        """The vectors' parts, one per model (`Embedder.parts`): cosines are taken part by part."""
        dimension = sum(parts)
        self.matrix = np.zeros((len(vectors), dimension), dtype=np.float32)
        self.present = np.zeros(len(vectors), dtype=bool)
        for row, data in enumerate(vectors):
            if data is None:
                continue
            vector = decode_vector(data)
            if vector.shape == (dimension,):  # a vector of another size belongs to another model: ignore it
                self.matrix[row] = vector
                self.present[row] = True

    @property
    def count(self) -> int:
        """How many chunks have a usable vector."""
        return int(self.present.sum())

    def scores(self, query: Vectors) -> npt.NDArray[np.float32]:
        """The cosine of every row with the (normalised) query vector; -inf for rows without a vector."""
        scores = cosines(self.matrix, np.asarray(query, dtype=np.float32), self.parts)
        scores[~self.present] = -np.inf
        return np.asarray(scores, dtype=np.float32)
