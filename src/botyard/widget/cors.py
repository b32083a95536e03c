"""CORS for the public widget API: a custom widget on a customer's website may call it from the browser.

Which origins are allowed is the chatbot's own `allowed_origins`, known only once the handler has read the chatbot,
so this middleware answers preflights for any origin (a preflight changes nothing) and lets an origin read a
response unless the handler refused it (403 `origin_not_allowed`, sent without CORS headers: the browser refuses
too). Every other `/api` path keeps the service-wide `BOTYARD_CORS_ORIGINS`.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PREFIX = "/api/v1/widget/"
_ALLOWED_HEADERS = "Content-Type, Accept, Last-Event-ID"


class WidgetCors:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is None:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            await _preflight(send, origin)
            return

        async def with_cors(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] != 403:
                response_headers = MutableHeaders(scope=message)
                response_headers["Access-Control-Allow-Origin"] = origin
                response_headers["Access-Control-Expose-Headers"] = "Retry-After"
                response_headers.add_vary_header("Origin")
            await send(message)

        await self.app(scope, receive, with_cors)


async def _preflight(send: Send, origin: str) -> None:
    headers = [
        (b"access-control-allow-origin", origin.encode("latin-1")),
        (b"access-control-allow-methods", b"GET, POST"),
        (b"access-control-allow-headers", _ALLOWED_HEADERS.encode()),
        (b"access-control-max-age", b"600"),
        (b"vary", b"Origin"),
        (b"content-length", b"0"),
    ]
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
