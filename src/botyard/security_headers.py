"""Headers every response carries, whatever answered it (an API handler, an error handler, a static file).

- `X-Content-Type-Options: nosniff`: a browser reads a response only as the type it was declared, so a JSON body
  that quotes an attacker's text (an error echoing input, a stored answer) is never sniffed into HTML or script.
- `Referrer-Policy: no-referrer`: the dashboard's and the chat page's addresses hold chatbot and session uuids (the
  session's is its capability); no link or image they load tells another site where it came from.

A response that sets either header itself keeps its own value.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

DEFAULTS = (("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"))


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in DEFAULTS:
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, with_headers)
