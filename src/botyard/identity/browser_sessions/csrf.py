"""Cross-site request forgery: a page of another site must not make a signed-in browser change anything.

A browser sends the session cookie with every request to the service, whoever's page starts it (SameSite=Lax
stops cross-site POSTs of a form but not a sibling subdomain, an old browser, or a GET's side effects). So a request
that is signed by the cookie and may change state (any method but GET, HEAD, OPTIONS) must also pass both checks:

1. **Where it comes from.** `Sec-Fetch-Site` (set by the browser, beyond a page's reach) must say `same-origin` or
   `none` (typed or bookmarked); without it, `Origin` must name this service's own host. A request that says neither
   passes this check (a non-browser client: it holds no victim's cookie) and is left to the second.
2. **What only the dashboard can know.** The `X-Botyard-CSRF` header must carry the session's cross-site token: a
   random secret set in a cookie that only pages of this origin can read, and whose hash the session row keeps. A
   header other than the standard few also forces a browser to ask (CORS preflight) before sending it cross-origin.

A request signed by an API key (`Authorization`) is not exposed: browsers never attach such a header on their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from botyard.errors import AppError, ErrorCode

HEADER = "x-botyard-csrf"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_ALLOWED_SITES = frozenset({"same-origin", "none"})


def same_origin(headers: Mapping[str, str]) -> bool:
    """Whether the browser says the request comes from this service's own pages (or from no page at all)."""
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site.lower() in _ALLOWED_SITES
    origin = headers.get("origin")
    if origin is None:
        return True
    host = headers.get("host", "")
    return origin != "null" and urlsplit(origin).netloc.lower() == host.lower()


def refused(message: str) -> AppError:
    return AppError(ErrorCode.CSRF_REFUSED, message)


def check_origin(headers: Mapping[str, str]) -> None:
    """Check 1 alone: for the requests that open a session (sign-in, invitation, reset, setup)."""
    if not same_origin(headers):
        raise refused("Cross-site request refused: sign in from this service's own dashboard")
