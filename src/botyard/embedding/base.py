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

    @property
    def parts(self) -> tuple[int, ...]:
        """The widths of the vector's parts, one per model (`(dimension,)` for one model): see `similarities`."""
        ...

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Vectors for chunks being indexed (batched by the caller; may be slow)."""
        ...

    async def embed_query(self, text: str) -> Vectors:
        """The vector of one query, shape (dimension,): on the hot path of every answer."""
        ...

    async def embed_questions(self, texts: Sequence[str]) -> Vectors:
        """The vectors of several short questions (a message's clauses) that are only ever compared by their own
        model (`similarities`), one row each, in as few model runs as the model allows: each row's own part is the
        one `embed_query` gives (to the bit, for the bundled models); a model that is not the text's own may leave
        its part zero."""
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


def similarities(rows: Vectors, columns: Vectors, parts: Sequence[int]) -> Vectors:
    """(len(rows) x len(columns)) cosines of two sets of vectors made of `parts` (`Embedder.parts`); the columns are
    the questions (a query, a user's messages), the rows what they are compared with.

    A vector of several parts holds one unit vector per model that reads the text, and zeros for a model that does
    not (`pair`). The question's own model decides: the first part, in the embedder's order of preference, that the
    question has. A row without that part is 0 away: its other model's cosines are on another scale, and mixing them
    would let a model that reads the row but not the question decide. With one part, a plain dot product.
    """
    first = np.atleast_2d(np.asarray(rows, dtype=np.float32))
    second = np.atleast_2d(np.asarray(columns, dtype=np.float32))
    if len(parts) <= 1:
        return np.asarray(first @ second.T, dtype=np.float32)
    found = np.zeros((first.shape[0], second.shape[0]), dtype=np.float32)
    decided = np.zeros(second.shape[0], dtype=bool)
    start = 0
    for width in parts:
        columns_here = ~decided & np.any(second[:, start : start + width] != 0.0, axis=1)
        if columns_here.any():
            found[:, columns_here] = first[:, start : start + width] @ second[columns_here, start : start + width].T
            decided |= columns_here
        start += width
    return found


def own_part(vector: Vectors, parts: Sequence[int]) -> int | None:
    """Which part (by index) is the question's own model: the first part `vector` has (`similarities`); None for a
    vector of zeros."""
    start = 0
    for index, width in enumerate(parts):
        if np.any(vector[start : start + width]):
            return index
        start += width
    return None


def cosines(rows: Vectors, vector: Vectors, parts: Sequence[int]) -> Vectors:
    """The cosine of each row with one vector (`similarities` with one column)."""
    return similarities(rows, vector, parts)[:, 0]


def part_cosines(rows: Vectors, vector: Vectors, parts: Sequence[int]) -> list[Vectors]:
    """The cosines of the rows with one question by each model that reads it (each part the question has, in order),
    NaN for a row that part is missing from (a text that model did not read)."""
    matrix = np.atleast_2d(np.asarray(rows, dtype=np.float32))
    question = np.asarray(vector, dtype=np.float32)
    found = []
    start = 0
    for width in parts:
        own = question[start : start + width]
        if np.any(own):
            block = matrix[:, start : start + width]
            cosine = np.asarray(block @ own, dtype=np.float32)
            cosine[~np.any(block != 0.0, axis=1)] = np.nan
            found.append(cosine)
        start += width
    return found


def unit_parts(vector: Vectors, parts: Sequence[int]) -> Vectors:
    """`vector` with each of its parts scaled to unit length again (a part of zeros stays zeros)."""
    result = np.array(vector, dtype=np.float32)
    start = 0
    for width in parts:
        norm = float(np.linalg.norm(result[start : start + width]))
        if norm > 0:
            result[start : start + width] /= norm
        start += width
    return result
