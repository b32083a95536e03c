"""An OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, ...).

`POST {base_url}/embeddings` with `{"model": ..., "input": [...]}`; the answer's `data[i].embedding` (placed by its
`index`) is checked (count, dimension, finite, non-zero) and L2-normalised here, because not every server
normalises and the rest of the service relies on a dot product being the cosine. The endpoint is configured by the
operator, hence trusted: the client comes from `egress.trusted_client`, the only factory of such clients.

Failures become `EmbeddingError`: network errors, timeouts and the statuses `botyard.openai_http` calls retryable
(408, 409, 429, 5xx) are `retryable` (the job runner tries again later); anything else (a wrong key, an unknown model,
a malformed answer) is not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from botyard.egress import trusted_client
from botyard.embedding.base import Vectors
from botyard.embedding.errors import EmbeddingError
from botyard.openai_http import ERROR_BODY_BYTES, error_detail, is_retryable_status, redact

BATCH_SIZE = 64
"""Texts per request: small enough for any server's request cap, large enough to amortise the round trip."""


class OpenAIEmbedder:
    """Embeds through `{base_url}/embeddings`, `batch_size` texts a request, into L2-normalised float32 vectors."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        dimension: int | None = None,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        self._client = trusted_client(base_url, api_key, timeout)
        self._model = model
        # Kept only to scrub it from error texts (some servers echo what they were sent); never logged.
        self._api_key = api_key
        self._dimension = dimension
        self._batch_size = batch_size

    @property
    def name(self) -> str:
        """`openai:<model>`: another model's vectors live in another space, so changing the model re-embeds."""
        return f"openai:{self._model}"

    @property
    def dimension(self) -> int:
        """The configured dimension, else the one the endpoint answered with (0 before its first answer)."""
        return self._dimension or 0

    @property
    def parts(self) -> tuple[int, ...]:
        return (self.dimension,)

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        size = self._batch_size
        parts = [await self._embed(texts[start : start + size]) for start in range(0, len(texts), size)]
        return np.concatenate(parts).astype(np.float32, copy=False)

    async def embed_query(self, text: str) -> Vectors:
        return np.asarray((await self._embed([text]))[0], dtype=np.float32)

    async def embed_questions(self, texts: Sequence[str]) -> Vectors:
        # One request for all of them: an endpoint's round trip costs more than its model.
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return await self._embed(texts)

    def reads(self, text: str) -> bool:
        """Endpoint models are the owner's choice, commonly multilingual: their cosines always count."""
        return bool(text.strip())

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _embed(self, texts: Sequence[str]) -> Vectors:
        try:
            response = await self._client.post("embeddings", json={"model": self._model, "input": list(texts)})
        except httpx.TimeoutException as error:
            raise EmbeddingError("the embeddings endpoint timed out", retryable=True) from error
        except httpx.TransportError as error:
            message = f"the embeddings endpoint is unreachable: {type(error).__name__}"
            raise EmbeddingError(message, retryable=True) from error
        if response.status_code >= 400:
            detail = redact(error_detail(response.content[:ERROR_BODY_BYTES], response.reason_phrase), self._api_key)
            message = f"the embeddings endpoint answered {response.status_code}: {detail}"
            raise EmbeddingError(message, retryable=is_retryable_status(response.status_code))
        try:
            body = response.json()
        except ValueError as error:
            raise EmbeddingError("the embeddings endpoint did not answer with JSON", retryable=False) from error
        return self._vectors(body, len(texts))

    def _vectors(self, body: Any, count: int) -> Vectors:
        rows = body.get("data") if isinstance(body, dict) else None
        if not isinstance(rows, list) or len(rows) != count:
            raise EmbeddingError(f"expected {count} embeddings in `data`", retryable=False)
        placed: list[list[float] | None] = [None] * count
        for position, row in enumerate(rows):
            index = row.get("index", position) if isinstance(row, dict) else None
            embedding = row.get("embedding") if isinstance(row, dict) else None
            if not isinstance(index, int) or not 0 <= index < count or placed[index] is not None:
                raise EmbeddingError("an embedding has a missing or repeated `index`", retryable=False)
            if not isinstance(embedding, list) or not embedding:
                raise EmbeddingError("an embedding is not a list of numbers", retryable=False)
            placed[index] = embedding
        try:
            vectors = np.array(placed, dtype=np.float32)
        except (TypeError, ValueError) as error:
            raise EmbeddingError("the embeddings are not numbers of one common length", retryable=False) from error
        if vectors.ndim != 2:
            raise EmbeddingError("the embeddings are not numbers of one common length", retryable=False)
        if self._dimension is not None and vectors.shape[1] != self._dimension:
            message = f"the endpoint's vectors have {vectors.shape[1]} dimensions, expected {self._dimension}"
            raise EmbeddingError(message, retryable=False)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not np.all(np.isfinite(vectors)) or not np.all(norms > 0) or not math.isfinite(float(norms.max())):
            raise EmbeddingError("an embedding is zero or not finite", retryable=False)
        self._dimension = int(vectors.shape[1])
        return np.asarray(vectors / norms, dtype=np.float32)
