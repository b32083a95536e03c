"""The one exception embedders raise, so that callers (ingestion, retrieval) decide between retrying and giving up
without knowing which backend failed."""

from __future__ import annotations


class EmbeddingError(Exception):
    """Texts could not be embedded. `retryable`: a passing failure (network, timeout, 408, 409, 429, 5xx) that a later
    attempt may not meet; otherwise the configuration or the endpoint is wrong (bad key, unknown model, bad answer)."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.retryable = retryable


class ModelIntegrityError(RuntimeError):
    """The bundled model file is not the one this release was built and measured with: the service refuses to start
    rather than produce vectors that silently disagree with the ones already stored."""
