"""`with_heartbeat`: the answer's events in order, a `None` in each silence, and the events already waiting when the
consumer takes one merged into it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from botyard.answering.base import Finished, joined_text
from botyard.answering.turn.events import with_heartbeat
from botyard.llm.provider import TextDelta, Usage


def joined(first: object, second: object) -> object | None:
    return first + second if isinstance(first, str) and isinstance(second, str) else None


async def source(*steps: object) -> AsyncGenerator[object, None]:
    """Yields the steps; a float is a pause of that many seconds instead."""
    for step in steps:
        if isinstance(step, float):
            await asyncio.sleep(step)
        else:
            yield step


def consume(*steps: object, interval: float | None = 5.0, merge: bool = True) -> list[object]:
    async def run() -> list[object]:
        got = []
        async for event in with_heartbeat(source(*steps), interval, joined if merge else None):
            got.append(event)
        return got

    return asyncio.run(run())


def test_events_that_came_together_are_one_and_events_apart_stay_apart() -> None:
    assert consume("a", "b", "c", 0.05, "d", 0.05, "e", "f") == ["abc", "d", "ef"]
    assert consume("a", "b", "c", 0.05, "d", 0.05, "e", "f", merge=False) == ["a", "b", "c", "d", "e", "f"]


def test_without_a_heartbeat_events_are_merged_all_the_same() -> None:
    assert consume("a", "b", 0.05, "c", interval=None) == ["ab", "c"]
    assert consume("a", "b", 0.05, "c", interval=None, merge=False) == ["a", "b", "c"]


def test_what_cannot_be_merged_keeps_its_place() -> None:
    assert consume("a", "b", 1, "c", "d", 2, 3, "e") == ["ab", 1, "cd", 2, 3, "e"]


def test_silences_still_get_their_heartbeat() -> None:
    assert consume("a", 0.25, "b", "c", interval=0.1) == ["a", None, None, "bc"]


def test_an_error_comes_after_the_events_before_it() -> None:
    async def failing() -> AsyncGenerator[object, None]:
        yield "a"
        yield "b"
        raise RuntimeError("provider gone")

    got: list[object] = []

    async def run() -> None:
        async for event in with_heartbeat(failing(), 5.0, joined):
            got.append(event)

    with pytest.raises(RuntimeError, match="provider gone"):
        asyncio.run(run())
    assert got == ["ab"]


def test_an_answers_text_pieces_join_and_nothing_else_does() -> None:
    assert joined_text(TextDelta("Hel"), TextDelta("lo")) == TextDelta("Hello")
    finished = Finished("stop", Usage(1, 1))
    assert joined_text(TextDelta("a"), finished) is None
    assert joined_text(finished, TextDelta("a")) is None
