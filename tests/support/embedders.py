"""Embedders that stand in for a real model."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from botyard.embedding import EmbeddingError, Vectors


class FakeEmbedder:
    """Another model: 8-dimensional vectors from a hash of the text. Records the sources' statuses it saw."""

    def __init__(self, name: str = "fake-v1", fail: int = 0, retryable: bool = True) -> None:
        self._name = name
        self.fail = fail
        self.retryable = retryable
        self.calls = 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return 8

    @property
    def parts(self) -> tuple[int, ...]:
        return (self.dimension,)

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        if self.fail:
            self.fail -= 1
            raise EmbeddingError("the endpoint is overloaded", retryable=self.retryable)
        rows = [np.frombuffer(hashlib.sha256(text.encode()).digest()[:8], dtype=np.uint8) for text in texts]
        vectors = np.array(rows, dtype=np.float32).reshape(len(texts), 8) + 1
        return np.asarray(vectors / np.linalg.norm(vectors, axis=1, keepdims=True), dtype=np.float32)

    async def embed_query(self, text: str) -> Vectors:
        return np.asarray((await self.embed_documents([text]))[0], dtype=np.float32)

    async def embed_questions(self, texts: Sequence[str]) -> Vectors:
        return await self.embed_documents(texts)

    def reads(self, text: str) -> bool:
        return bool(text.strip())
