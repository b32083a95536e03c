"""Which embedder a process uses, from the settings; the bundled models are loaded once per process."""

from __future__ import annotations

from pathlib import Path

from botyard.config import Settings
from botyard.embedding.base import Embedder
from botyard.memory import release_free_memory

_BUNDLED: dict[tuple[str, Path], Embedder] = {}
"""The bundled models, loaded once per process. They hold no connection and nothing of the runtime that asked
(their query batches are kept per event loop: `batching`), so every runtime of a process shares one copy instead of
loading its own, about 120 MB each: a test process builds hundreds of apps, and held each one's models (an OOM
kill of a test worker at 8 GB, 2026-12-03)."""


def build_embedder(settings: Settings) -> Embedder | None:
    """The configured embedder, or None for `BOTYARD_EMBEDDER=none` (retrieval is then keyword search only).

    The bundled models load here (about a second) and refuse a tampered file; they are imported only here, so
    commands that never embed (`botyard key create`, `migrate`) never pay for them.
    """
    if settings.embedder == "none":
        return None
    if settings.embedder == "openai":
        from botyard.embedding.openai_compat import OpenAIEmbedder

        if not settings.embedding_base_url or not settings.embedding_model:
            raise ValueError("BOTYARD_EMBEDDER=openai needs BOTYARD_EMBEDDING_BASE_URL and BOTYARD_EMBEDDING_MODEL")
        key = settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else None
        return OpenAIEmbedder(
            settings.embedding_base_url,
            settings.embedding_model,
            key,
            timeout=settings.embedding_timeout,
            dimension=settings.embedding_dimension,
        )
    bundled = (settings.embedder, settings.data_dir / "models")
    if bundled not in _BUNDLED:
        _BUNDLED[bundled] = _load_bundled(*bundled)
    return _BUNDLED[bundled]


def _load_bundled(kind: str, table_dir: Path) -> Embedder:
    from botyard.embedding.minilm import MiniLMEmbedder

    if kind == "minilm":
        bundled: Embedder = MiniLMEmbedder()
    else:
        from botyard.embedding.pair import USE_SCALE, PairEmbedder
        from botyard.embedding.use import UseEmbedder

        bundled = PairEmbedder(MiniLMEmbedder(), UseEmbedder(table_dir=table_dir), USE_SCALE)
    release_free_memory()  # what loading freed (`memory`): about 70 MB of onnxruntime's optimizer
    return bundled


async def close_embedder(embedder: Embedder | None) -> None:
    """Release what an embedder holds (the HTTP client of an endpoint); the `Embedder` protocol has no close."""
    close = getattr(embedder, "aclose", None)
    if close is not None:
        await close()
