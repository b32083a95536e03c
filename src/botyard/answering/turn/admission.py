"""One answer's admission slot: taken before preparation, given back when its search is done.

The process answers at most `answer_admission` questions at once in the steps that hold the database (preparation,
retrieval). An answer holds one slot through both: taking it twice let a burst of newcomers prepare between an
admitted answer's preparation and its search, so the answers already begun waited behind them, and the first answers
of a burst were the last to finish. The slot is given back once, whichever way the answer goes on: after its search,
at once when it needs none (a canned reply, live chat), or when it is closed unstreamed.
"""

from __future__ import annotations

import asyncio


class Slot:
    """A taken place of the admission semaphore, released at most once."""

    def __init__(self, semaphore: asyncio.Semaphore) -> None:
        self._semaphore = semaphore
        self._held = False

    async def take(self) -> Slot:
        await self._semaphore.acquire()
        self._held = True
        return self

    def give_back(self) -> None:
        if self._held:
            self._held = False
            self._semaphore.release()
