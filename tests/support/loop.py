"""Whether the event loop stays free while something runs."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def with_loop_ticks(work: Awaitable[T], interval: float) -> tuple[T, int]:
    """`work`'s result, and how many sleeps of `interval` seconds another task finished meanwhile (a loop that a
    blocking call holds up ticks hardly at all)."""
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(interval)
            ticks += 1

    ticking = asyncio.create_task(tick())
    try:
        return await work, ticks
    finally:
        ticking.cancel()
