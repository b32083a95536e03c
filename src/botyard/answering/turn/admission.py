"""One answer's admission slot: taken before preparation, given back when its search is done.

The process answers at most `answer_admission` questions at once in the steps that hold the database (preparation,
retrieval). An answer holds one slot through both: taking it twice let a burst of newcomers prepare between an
admitted answer's preparation and its search, so the answers already begun waited behind them, and the first answers
of a burst were the last to finish. The slot is given back once, whichever way the answer goes on:

- `Pipeline.begin`: the preparation raised (no run is made to own it);
- `AnswerRun._search`, in its `finally`: the search stage ended (found, failed, cancelled, or needless: a canned
  reply, live chat, which give it back at once);
- `AnswerRun.close`: the run ended before its search stage began (never streamed, or the client left at once).
"""

from __future__ import annotations

import asyncio


class Slot:
    """A taken place of the admission semaphore, given back at most once (a second `give_back` does nothing)."""

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
