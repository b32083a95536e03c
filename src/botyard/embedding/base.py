"""The embedder interface every backend implements, and how vectors are stored in `chunk.embedding`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text), so a dot product is the cosine."""

    @property
    def name(self) -> str:
        """Identifies the model and its settings; chunks embedded under another name are embedded again."""
        ...

    @property
    def dimension(self) -> int: ...

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Vectors for chunks being indexed (batched by the caller; may be slow)."""
        ...

    async def embed_query(self, text: str) -> Vectors:
        """The vector of one query, shape (dimension,): on the hot path of every answer."""
        ...

    def reads(self, text: str) -> bool:
        """Whether the model's vector of `text` means something: a model trained on one language places a question
        in another almost at random, and its cosines must then not count (retrieval falls back to BM25)."""
        ...


def encode_vector(vector: Vectors) -> bytes:
    """A vector as stored in the database: little-endian float32 bytes."""
    return np.asarray(vector, dtype="<f4").tobytes()


def decode_vector(data: bytes) -> Vectors:
    return np.frombuffer(data, dtype="<f4")


def encode_matrix(vectors: Vectors) -> bytes:
    """Rows of vectors as stored in the database: little-endian float16, half the bytes of float32 and, for cosines
    of unit vectors, the same ranking (they differ from float32 by about 1e-3)."""
    return np.asarray(vectors, dtype="<f2").tobytes()


def decode_matrix(data: bytes, dimension: int) -> Vectors:
    """The rows `encode_matrix` stored, as float32; an empty matrix for empty data."""
    flat = np.frombuffer(data, dtype="<f2").astype(np.float32)
    return flat.reshape(-1, dimension) if dimension > 0 else flat.reshape(0, 0)
