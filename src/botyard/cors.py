"""CORS for the API outside the widget's paths: the origins of `cors_origins`, which the dashboard's Settings page
can change while the service runs (`Origins` is the one list every request reads; `service_settings` replaces it).

With no origin configured a plain request passes untouched (no CORS header: the browser keeps the response from the
page, as before), and a preflight is refused with a message naming the setting that would allow it. The widget's
own paths are `widget/cors.py`'s, which sits outside this one and answers their preflights first.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from botyard.config import setting_name

SETTING = setting_name("cors_origins", "Allowed origins")
METHODS = ("GET", "POST", "DELETE", "OPTIONS")
HEADERS = ("Authorization", "Content-Type")


class Origins:
    """The origins allowed now. Replaced whole (`set`), never changed in place, so a request reads one list."""

    def __init__(self, origins: Iterable[str] = ()) -> None:
        self.allowed: tuple[str, ...] = tuple(origins)

    def set(self, origins: Iterable[str]) -> None:
        self.allowed = tuple(origins)


class _NamedRefusal(CORSMiddleware):
    def preflight_response(self, request_headers: Headers) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code == 400 and b"origin" in bytes(response.body):
            text = (
                f"Disallowed CORS origin: {request_headers['origin']} may call this API once it is listed in {SETTING}"
            )
            return PlainTextResponse(text, status_code=400, headers=dict(response.headers))
        return response


class ServiceCors:
    """Starlette's CORS middleware for the origins of the moment, rebuilt when the list changes."""

    def __init__(self, app: ASGIApp, origins: Origins) -> None:
        self.app = app
        self.origins = origins
        self._built_for: tuple[str, ...] | None = None
        self._cors = self._build(())

    def _build(self, allowed: tuple[str, ...]) -> CORSMiddleware:
        self._built_for = allowed
        return _NamedRefusal(self.app, allow_origins=allowed, allow_methods=METHODS, allow_headers=HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        allowed = self.origins.allowed
        if not allowed and not _is_preflight(scope):
            await self.app(scope, receive, send)
            return
        if allowed is not self._built_for:
            self._cors = self._build(allowed)
        await self._cors(scope, receive, send)


def _is_preflight(scope: Scope) -> bool:
    headers = Headers(scope=scope)
    return scope["method"] == "OPTIONS" and "origin" in headers and "access-control-request-method" in headers
