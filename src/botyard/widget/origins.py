"""Which websites may use a chatbot's widget.

A browser tells the server who is asking: the `Origin` header on API requests (every cross-origin request, and
same-origin POSTs) and the embedding page's origin in `Referer` when it frames the chat page. A chatbot with an
empty `allowed_origins` may be embedded anywhere; otherwise only the listed origins and the service's own pages
get through. The browser enforces the same list through CORS and the chat page's `frame-ancestors`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from starlette.requests import Request

from botyard.errors import AppError, ErrorCode


def normalise_origin(value: str) -> str:
    """`scheme://host[:port]` in lower case without a default port or a trailing slash; raises ValueError."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("an origin is scheme://host[:port], with http or https")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError("an origin has no path, query, fragment or credentials")
    try:
        port = parts.port
    except ValueError as error:
        raise ValueError("an origin's port is a number up to 65535") from error
    default = 443 if parts.scheme == "https" else 80
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
"""One label of a host name (letters, digits, inner hyphens): the host goes into a CSP header, where `;`, `*`, a
space or a control character would start another directive or source, and a non-Latin-1 character cannot be sent."""


def normalise_host(value: str) -> str:
    """A bare host name (no scheme, path or port), lower case, an international one in its ASCII (punycode) form;
    `*.example.com` for every subdomain of a name. Raises ValueError for anything else."""
    host = value.strip().lower()
    wildcard = host.startswith("*.")
    name = host.removeprefix("*.")
    try:
        name = name.encode("idna").decode("ascii")
    except UnicodeError as error:
        raise ValueError("a host is a bare name such as images.example.com") from error
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.match(label) for label in labels) or (wildcard and len(labels) < 2):
        raise ValueError("a host is a bare name such as images.example.com, or *.example.com for its subdomains")
    return f"*.{name}" if wildcard else name


def own_origin(request: Request) -> str:
    """The origin the service's own pages are served from, as the browser sees it (the `Host` it sent)."""
    host = request.headers.get("host", "")
    return f"{request.url.scheme}://{host}".lower()


def origin_allowed(origin: str, allowed: list[str], request: Request) -> bool:
    if not allowed or origin == own_origin(request):
        return True
    try:
        return normalise_origin(origin) in allowed
    except ValueError:  # "null" (a sandboxed frame, a file), or garbage
        return False


def check_origin(request: Request, allowed: list[str]) -> str | None:
    """The request's `Origin` if it may use the widget API (None: no Origin, not a browser's cross-site call);
    raises 403 `origin_not_allowed` otherwise."""
    origin = request.headers.get("origin")
    if origin is None:
        return None
    if not origin_allowed(origin, allowed, request):
        raise AppError(ErrorCode.ORIGIN_NOT_ALLOWED, "This website may not use this chatbot's widget")
    return origin


def referrer_origin(request: Request) -> str | None:
    """The origin of the page that sent the request, from `Referer` (browsers send at least the origin)."""
    referer = request.headers.get("referer")
    if not referer:
        return None
    parts = urlsplit(referer)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else None
