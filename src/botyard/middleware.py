"""ASGI middleware that guards request bodies before any handler sees them.

- Body size caps: JSON bodies are capped at `max_body_kb`, multipart uploads at `max_upload_mb`. The cap is checked
  against `Content-Length` up front and enforced again while the body streams in (a chunked body has no length), so
  an oversize body is refused without being read whole.
- Content type: the hosted service's clients post JSON with no content type, a wrong one, or a misspelled one. The
  API takes nothing but JSON outside uploads, so any non-multipart body is read as JSON.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from botyard.config import Settings


class BodyTooLarge(Exception):
    pass


def _too_large_body(limit: int) -> bytes:
    return json.dumps({"error": f"Request body too large (limit {limit} bytes)", "code": "payload_too_large"}).encode()


class RequestBodyGuard:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.json_limit = settings.max_body_kb * 1024
        # A multipart body carries the file plus its framing; allow a little room for the latter.
        self.upload_limit = settings.max_upload_mb * 1024 * 1024 + 64 * 1024

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
        is_multipart = content_type.startswith("multipart/")
        limit = self.upload_limit if is_multipart else self.json_limit
        if not is_multipart and scope["path"].startswith("/api/") and "json" not in content_type:
            scope = dict(scope)
            scope["headers"] = [(k, v) for k, v in scope["headers"] if k != b"content-type"] + [
                (b"content-type", b"application/json")
            ]
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _send_too_large(send, limit)
            return

        received = 0
        exceeded = False
        response_started = False

        async def counting_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    exceeded = True
                    raise BodyTooLarge
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal response_started
            # Whatever the app answers after the cap was hit (a parse error, a 500), the client gets a 413.
            if exceeded:
                if message["type"] == "http.response.start" and not response_started:
                    response_started = True
                    await _send_too_large(send, limit)
                return
            response_started = response_started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except BodyTooLarge:
            if not response_started:
                await _send_too_large(send, limit)


async def _send_too_large(send: Send, limit: int) -> None:
    body = _too_large_body(limit)
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
