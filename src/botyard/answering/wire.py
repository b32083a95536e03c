"""The two wire formats of a streamed answer, and the response that always finalises its message.

Plain text (the default, byte-compatible with the hosted service): the answer's text and nothing else, sent as it
is produced. Each chunk is a whole `str` encoded on its own, so a UTF-8 character is never split between chunks,
and newlines are the answer's own. `Accept: text/event-stream` opts into SSE with typed events: `start`, `delta`,
`citation`, `ping`, `error`, and always `end` last (after the message is stored).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from botyard import sse
from botyard.answering.turn.events import ChatEvent, Citation, Ended, Failed, Ping, Started
from botyard.answering.turn.run import AnswerRun
from botyard.llm.provider import TextDelta

PLAIN_TEXT = "text/plain; charset=utf-8"
EVENT_STREAM = "text/event-stream; charset=utf-8"
_NO_BUFFERING = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def wants_events(accept: str | None) -> bool:
    return "text/event-stream" in (accept or "").lower()


def sse_event(event: ChatEvent) -> bytes:
    match event:
        case Started(message_uuid, session_uuid):
            return sse.encode("start", {"message_uuid": message_uuid, "session_uuid": session_uuid})
        case TextDelta(text):
            return sse.encode("delta", {"text": text})
        case Citation(marker, entry):
            return sse.encode("citation", {"marker": marker, **entry})
        case Ping():
            return sse.PING
        case Failed(error):
            return sse.encode("error", {"error": error})
        case Ended(message_uuid, finish_reason, citations, usage, confidence):
            body = {"message_uuid": message_uuid, "finish_reason": finish_reason, "citations": citations}
            return sse.encode("end", body | {"usage": usage.as_dict(), "confidence": confidence})
    raise AssertionError(f"unknown event {event!r}")


async def plain_body(run: AnswerRun) -> AsyncIterator[bytes]:
    async for event in run.stream:
        if isinstance(event, TextDelta) and event.text:
            yield event.text.encode()


async def event_body(run: AnswerRun) -> AsyncIterator[bytes]:
    async for event in run.stream:
        yield sse_event(event)


class AnswerResponse(StreamingResponse):
    """Streams one answer and, however the response ends (completed, client gone, server error), finalises the
    message in a shielded step before returning."""

    def __init__(self, run: AnswerRun, *, events: bool) -> None:
        body = event_body(run) if events else plain_body(run)
        super().__init__(body, media_type=EVENT_STREAM if events else PLAIN_TEXT, headers=_NO_BUFFERING)
        self.run = run

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            with anyio.CancelScope(shield=True):
                await self.run.close()
                await self.body_iterator.aclose()  # type: ignore[attr-defined]


async def collect(run: AnswerRun) -> str:
    """The whole answer, for the non-streaming endpoint."""
    try:
        async for _ in run.stream:
            pass
    finally:
        await run.close()
    return run.text
