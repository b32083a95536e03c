"""The dashboard's two cookies.

- `botyard_session`: the session token. HttpOnly (no script reads it), SameSite=Lax, Secure when the request came
  over https (directly, or to a trusted proxy that says so in `X-Forwarded-Proto`), Path=/, and it lasts as long as
  the session row.
- `botyard_csrf`: the session's cross-site token, readable by the dashboard's scripts (they echo it in the
  `X-Botyard-CSRF` header; see `csrf.py`). Same lifetime and flags, but not HttpOnly.
"""

from __future__ import annotations

from datetime import datetime

from starlette.requests import Request
from starlette.responses import Response

from botyard.client_address import from_trusted_proxy, trusted_networks
from botyard.config import Settings

SESSION = "botyard_session"
CSRF = "botyard_csrf"


def is_secure(request: Request) -> bool:
    if request.url.scheme == "https":
        return True
    settings: Settings = request.app.state.settings
    peer = request.client.host if request.client is not None else None
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return forwarded == "https" and from_trusted_proxy(peer, trusted_networks(settings.trusted_proxies))


def set_session(
    response: Response, request: Request, *, token: str, csrf: str, expires_at: datetime, now: datetime
) -> None:
    max_age = max(0, int((expires_at - now).total_seconds()))
    secure = is_secure(request)
    _forget(response, (SESSION, CSRF))
    for name, value, http_only in ((SESSION, token, True), (CSRF, csrf, False)):
        response.set_cookie(name, value, max_age=max_age, path="/", secure=secure, httponly=http_only, samesite="lax")


def clear_session(response: Response, request: Request) -> None:
    secure = is_secure(request)
    for name, http_only in ((SESSION, True), (CSRF, False)):
        response.delete_cookie(name, path="/", secure=secure, httponly=http_only, samesite="lax")


def _forget(response: Response, names: tuple[str, ...]) -> None:
    """Drop the `Set-Cookie` headers of `names` already on `response` (a transaction run again sets them anew)."""
    prefixes = tuple(f"{name}=".encode("latin-1") for name in names)
    response.raw_headers[:] = [
        (key, value) for key, value in response.raw_headers if key != b"set-cookie" or not value.startswith(prefixes)
    ]
