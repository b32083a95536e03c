"""Politeness: at most two requests at a time to one host, and a small gap between two request starts (not after
a 304, see `HostGate.waive`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

PER_HOST = 2


class HostGate:
    def __init__(self, delay: float) -> None:
        self.delay = delay
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._turns: dict[str, asyncio.Lock] = {}
        self._next_start: dict[str, float] = {}
        self._delays: dict[str, float] = {}
        self._waived: dict[str, asyncio.Event] = {}

    def slow_down(self, host: str, seconds: float) -> None:
        """A host's robots.txt asked for a longer gap (`Crawl-delay`, capped at 10 s)."""
        self._delays[host] = max(self.delay, min(seconds, 10.0))

    def waive(self, host: str) -> None:
        """The last answer was a bodiless 304: the next request need not wait (the gap spaces out downloads; two
        conditional requests at a time cost a server what a browser revalidating its cache does)."""
        if host not in self._delays:  # a robots.txt Crawl-delay is the site's own wish: always kept
            self._next_start[host] = 0.0
            if host in self._waived:
                self._waived[host].set()

    @asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[None]:
        slots = self._slots.setdefault(host, asyncio.Semaphore(PER_HOST))
        turn = self._turns.setdefault(host, asyncio.Lock())
        async with slots:
            async with turn:
                loop = asyncio.get_running_loop()
                wait = self._next_start.get(host, 0.0) - loop.time()
                if wait > 0:
                    waived = self._waived.setdefault(host, asyncio.Event())
                    waived.clear()
                    with contextlib.suppress(TimeoutError):  # the gap passed, unless a waiver ended it sooner
                        await asyncio.wait_for(waived.wait(), wait)
                self._next_start[host] = loop.time() + self._delays.get(host, self.delay)
            yield
