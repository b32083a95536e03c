"""The service's description from its settings and the embedder it built."""

from __future__ import annotations

from urllib.parse import urlsplit

from botyard import __version__
from botyard.about.schemas import ServiceInfo
from botyard.config import Settings
from botyard.embedding import Embedder


def describe(settings: Settings, embedder: Embedder | None) -> ServiceInfo:
    llm = settings.llm_base_url
    return {
        "version": __version__,
        "answerer": "llm" if llm else "offline",
        "llm_host": host_of(llm) if llm else None,
        "llm_models": dict(settings.llm_models) if llm else {},
        "llm_default_model": settings.llm_default_model if llm else None,
        "public_url": settings.public_url,
        "embedder": settings.embedder,
        "embedder_model": embedder.name if embedder is not None else None,
    }


def host_of(url: str) -> str:
    """The host and port of a URL, nothing else: no scheme, credentials, path or query (a key may hide there)."""
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return ""
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{port}" if port is not None else host
