"""Waiting for something to happen: poll a condition until it holds or a deadline passes, never a fixed sleep.

The deadline bounds a wait that would otherwise be endless; it is not what a test asserts, so it is generous (a
machine busy with the parallel suite, or with anything else, is slow), and a condition that holds early ends the wait
early.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

START = 180.0
"""A cold start of a `botyard` process (imports, migrations, models) on a loaded machine."""


def wait_for(condition: Callable[[], T], seconds: float = 60, what: str = "the condition", every: float = 0.05) -> T:
    """Call `condition` every `every` seconds until it returns something true, and return that; fail the test when
    `seconds` pass first."""
    deadline = time.monotonic() + seconds
    while not (result := condition()):
        assert time.monotonic() < deadline, f"{what}: still not so after {seconds:g} s"
        time.sleep(every)
    return result


async def until(condition: Callable[[], T | Awaitable[T]], seconds: float = 60, what: str = "the condition") -> T:
    """`wait_for` in an event loop: `condition` (a function, or a coroutine function) is checked every 20 ms while
    the loop's other tasks run."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        result = condition()
        if isinstance(result, Awaitable):
            result = await result
        if result:
            return result
        assert loop.time() < deadline, f"{what}: still not so after {seconds:g} s"
        await asyncio.sleep(0.02)
