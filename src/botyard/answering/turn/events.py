"""The events of a streamed answer, independent of the wire format (plain text or SSE), and the heartbeat."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from botyard.llm.provider import TextDelta, Usage

T = TypeVar("T")
READ_AHEAD = 256
"""Events the source may get ahead of the consumer when they can be merged: far more than a read from the provider
brings at once, and a client that reads slowly still holds the source up."""


@dataclass(frozen=True)
class Started:
    message_uuid: str
    session_uuid: str


@dataclass(frozen=True)
class Citation:
    marker: str
    entry: dict[str, Any]


@dataclass(frozen=True)
class Ping:
    pass


@dataclass(frozen=True)
class Failed:
    error: str


@dataclass(frozen=True)
class Ended:
    message_uuid: str
    finish_reason: str
    citations: dict[str, dict[str, Any]]
    usage: Usage
    confidence: str | None = None
    """`high`, `low` or `none` (`answering.offline.confidence`), as stored in the message's `meta_json`."""


ChatEvent = Started | TextDelta | Citation | Ping | Failed | Ended
"""The events of a streamed answer: the answer's text arrives as the provider's and the answerer's `TextDelta`."""


async def with_heartbeat(
    events: AsyncGenerator[T, None], interval: float | None, merge: Callable[[T, T], T | None] | None = None
) -> AsyncGenerator[T | None, None]:
    """`events`, with a `None` after every `interval` seconds in which none came (None: no heartbeat).

    The source is driven by one task of its own, start to end, so that an answerer holding an HTTP stream open
    across its yields is never resumed from different tasks; waiting on its queue can be cancelled at any time.

    `merge(a, b)`: one event for two that follow each other, or None when they must stay apart. Events that are
    already waiting when the consumer takes one are merged into it: a busy process, whose source gets ahead, then
    sends fewer and larger pieces (each costs about as much on its way to the client, whatever its size), and
    one that keeps up sends every event as it came.
    """
    if interval is None and merge is None:  # the consumer's task drives the source itself, with no queue between
        async with contextlib.aclosing(events):
            async for event in events:
                yield event
        return
    inbox = _Inbox(merge)
    queue = inbox.queue

    async def pump() -> None:
        try:
            async for event in events:
                await queue.put(("event", event))
        except Exception as exc:  # handed to the consumer, which raises it in its own task
            await queue.put(("error", exc))
            return
        finally:
            with contextlib.suppress(Exception):
                await events.aclose()
        await queue.put(("end", None))

    task = asyncio.create_task(pump())
    try:
        while True:
            try:  # `timeout`, not `wait_for`: that makes a task per event (an LLM's answer has hundreds)
                async with asyncio.timeout(interval):
                    kind, value = await inbox.take()
            except TimeoutError:
                yield None
                continue
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        task.cancel()


class _Inbox(Generic[T]):
    """The queue from the source's task to the consumer, who takes the events waiting in it merged."""

    def __init__(self, merge: Callable[[T, T], T | None] | None) -> None:
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(maxsize=READ_AHEAD if merge is not None else 1)
        self._merge = merge
        self._held: tuple[str, Any] | None = None
        """What was taken from the queue but could not be merged: the next to be taken."""

    async def take(self) -> tuple[str, Any]:
        if self._held is not None:
            (kind, value), self._held = self._held, None
        else:
            kind, value = await self.queue.get()
        while kind == "event" and self._merge is not None and not self.queue.empty():
            following = self.queue.get_nowait()
            merged = self._merge(value, following[1]) if following[0] == "event" else None
            if merged is None:
                self._held = following
                break
            value = merged
        return kind, value
