"""The events of a streamed answer, independent of the wire format (plain text or SSE), and the heartbeat."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, TypeVar

from botyard.llm.provider import TextDelta, Usage

T = TypeVar("T")


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


ChatEvent = Started | TextDelta | Citation | Ping | Failed | Ended
"""The events of a streamed answer: the answer's text arrives as the provider's and the answerer's `TextDelta`."""


async def with_heartbeat(events: AsyncGenerator[T, None], interval: float | None) -> AsyncGenerator[T | None, None]:
    """`events`, with a `None` after every `interval` seconds in which none came (None: no heartbeat).

    The source is driven by one task of its own, start to end, so that an answerer holding an HTTP stream open
    across its yields is never resumed from different tasks; waiting on its queue can be cancelled at any time.
    """
    if interval is None:  # nothing to time: the consumer's task drives the source itself, with no queue between
        async with contextlib.aclosing(events):
            async for event in events:
                yield event
        return
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(maxsize=1)

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
                    kind, value = await queue.get()
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
