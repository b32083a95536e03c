"""The address of a URL source: the form two URLs of one page share, and the de-duplication key made of it."""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_url(url: str) -> str:
    """The form two URLs of the same page share: lowercase scheme and host, no default port, no fragment, "/" for
    an empty path. Path and query are kept as given (servers may treat their case as significant)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None and parts.port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{parts.port}"
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@{host}" if userinfo else host
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def url_dedupe_key(url: str) -> str:
    """The key that makes a chatbot hold at most one URL source per page address."""
    return "url:" + hashlib.sha256(normalise_url(url).encode()).hexdigest()
