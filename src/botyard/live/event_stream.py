"""Server-sent events read from the database: each worker process and machine sees the same rows, so a client may
be served by any of them and resume where it was (`id:` lines, `Last-Event-ID`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import StreamingResponse

from botyard import sse
from botyard.db.session import Database

POLL_SECONDS = 0.5
PING_SECONDS = 15.0

StreamedEvent = tuple[int, str, dict[str, Any]]
"""An event's id, its SSE event name, and its data."""

EventReader = Callable[[AsyncSession, int], Awaitable[list[StreamedEvent]]]
"""Reads the events after an id, oldest first."""


MAX_EVENT_ID = 2**63 - 1
"""The largest id a BIGINT column holds: comparing with a larger one fails the stream's query on PostgreSQL."""


def resume_point(header: str | None) -> int | None:
    """The id in a `Last-Event-ID` header, if it is one: ASCII digits ("²" is a digit to `str.isdigit`, not to
    `int`) of an id a database can hold; anything else is no id, and the stream starts from now."""
    text = (header or "").strip()
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_EVENT_ID)):
        return None  # also keeps `int` from parsing (or refusing) thousands of digits
    value = int(text)
    return value if value <= MAX_EVENT_ID else None


async def start_after(after: int | None, last_event_id: str | None, latest: Callable[[], Awaitable[int]]) -> int:
    """Where a client's stream starts: after `after`, else after its `Last-Event-ID`, else from now (`latest`)."""
    start = after if after is not None else resume_point(last_event_id)
    return start if start is not None else await latest()


def event_response(database: Database, read: EventReader, after: int) -> StreamingResponse:
    """The events after `after` as an endless SSE response."""
    return StreamingResponse(
        event_stream(database, read, after), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
    )


async def event_stream(database: Database, read: EventReader, after: int) -> AsyncIterator[bytes]:
    """Poll `read` and send what is new, with a `ping` after 15 s of silence, until the client disconnects."""
    loop = asyncio.get_running_loop()
    last_sent = loop.time()
    yield b": events\n\n"  # the response starts at once, before the first event
    while True:
        async with database.transaction(write=False) as db:
            found = await read(db, after)
        for event_id, name, data in found:
            after = event_id
            yield sse.encode(name, data, event_id=event_id)
            last_sent = loop.time()
        if loop.time() - last_sent >= PING_SECONDS:
            yield sse.PING
            last_sent = loop.time()
        if not found:
            await asyncio.sleep(POLL_SECONDS)
