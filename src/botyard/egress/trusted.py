"""The HTTP client for an endpoint the operator configured (LLM, embeddings): trusted, so no address checks."""

from __future__ import annotations

import httpx

from botyard.egress.client import USER_AGENT
from botyard.egress.url import DEFAULT_PORTS


def trusted_client(
    base_url: str, api_key: str | None, timeout: float, *, max_connections: int | None = None
) -> httpx.AsyncClient:
    """An httpx client for an endpoint the operator configured (LLM, embeddings), which may well be private.

    Trusted, so no address checks; still built here, because no other module builds HTTP clients. No environment
    proxies, no redirects; the caller closes it (`aclose`). `max_connections` raises httpx's pool cap of 100 for
    callers that hold many long connections at once (LLM streams).
    """
    url = httpx.URL(base_url)
    if url.scheme not in DEFAULT_PORTS or not url.host:
        raise ValueError(f"endpoint {base_url!r} must be an http(s) URL with a host")
    headers = {"User-Agent": USER_AGENT}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    # httpx's own default pool (100 connections, 20 kept alive) unless the caller asks for more.
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)
    if max_connections is not None:
        limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
    return httpx.AsyncClient(
        limits=limits,
        base_url=url,
        headers=headers,
        timeout=httpx.Timeout(timeout),
        trust_env=False,
        follow_redirects=False,
    )
