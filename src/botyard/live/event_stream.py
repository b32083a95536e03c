"""Server-sent events read from the database: each worker process and machine sees the same rows, so a client may
be served by any of them and resume where it was (`id:` lines, `Last-Event-ID`). A stream reads only when the
process's `EventWatch` rings its topic (`wakeup.py`)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from botyard import metrics, sse
from botyard.db.session import Database
from botyard.errors import AppError, ErrorCode
from botyard.live.wakeup import EventWatch

PING_SECONDS = 15.0
NO_BUFFERING = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
"""Every event as it comes: no cache, and nginx (which reads `X-Accel-Buffering`) passes the stream unbuffered."""

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


class StreamSlots:
    """The event streams each client address holds open in this process (`BOTYARD_STREAMS_PER_ADDRESS`): an open
    stream costs a connection and a task for as long as the client likes, so one address may not hold hundreds."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self._open: Counter[str] = Counter()

    def take(self, address: str) -> Callable[[], None]:
        """A slot for `address`, or 429 `too_many_streams`; call what it returns, once, to give the slot back."""
        if self._open[address] >= self.per_address:
            message = f"At most {self.per_address} event streams may be open from one address"
            metrics.rate_limited(ErrorCode.TOO_MANY_STREAMS.value, "streams_per_address")
            raise AppError(ErrorCode.TOO_MANY_STREAMS, message, headers={"Retry-After": str(int(PING_SECONDS))})
        self._open[address] += 1
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if not given_back:
                given_back = True
                self._open[address] -= 1
                if self._open[address] <= 0:
                    del self._open[address]

        return give_back


class _EventResponse(StreamingResponse):
    """An SSE response that runs `on_close` when it ends, however it ends (even if its body never started)."""

    def __init__(self, content: AsyncIterator[bytes], on_close: Callable[[], None]) -> None:
        super().__init__(content, media_type="text/event-stream", headers=NO_BUFFERING)
        self.on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.on_close()


def event_response(
    database: Database,
    watch: EventWatch,
    topic: str,
    read: EventReader,
    after: int,
    on_close: Callable[[], None] = lambda: None,
) -> StreamingResponse:
    """The events after `after` as an endless SSE response, read when `watch` rings `topic`."""
    return _EventResponse(event_stream(database, watch, topic, read, after), on_close)


async def event_stream(
    database: Database, watch: EventWatch, topic: str, read: EventReader, after: int
) -> AsyncIterator[bytes]:
    """Send what is new whenever the topic's bell rings, with a `ping` after 15 s of silence, until the client
    disconnects. An idle stream costs no query."""
    loop = asyncio.get_running_loop()
    with watch.subscribe(topic) as bell:
        yield b": events\n\n"  # the response starts at once, before the first event
        last_sent = loop.time()
        bell.set()  # read once at the start: a resumed stream has events to catch up on
        while True:
            try:
                await asyncio.wait_for(bell.wait(), timeout=max(0.0, last_sent + PING_SECONDS - loop.time()))
            except TimeoutError:
                yield sse.PING  # and no read: only a ring says there is something to read
                last_sent = loop.time()
                continue
            bell.clear()  # before reading: a ring during the read is not lost
            async with database.transaction(write=False) as db:
                found = await read(db, after)
            for event_id, name, data in found:
                after = event_id
                yield sse.encode(name, data, event_id=event_id)
                last_sent = loop.time()
            if found:
                bell.set()  # a read returns a page at most: there may be more


async def _watch(request: Request) -> EventWatch:
    watch: EventWatch = request.app.state.event_watch
    return watch


async def _slots(request: Request) -> StreamSlots:
    slots: StreamSlots = request.app.state.stream_slots
    return slots


AppEventWatch = Annotated[EventWatch, Depends(_watch)]
"""The process's event watcher."""
AppStreamSlots = Annotated[StreamSlots, Depends(_slots)]
"""The process's count of open event streams per client address."""
