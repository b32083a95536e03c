"""Large chatbots' indexes saved ahead of their next question, by the process that runs the jobs.

A process that meets a chatbot without an index builds it from the database (16-20 CPU seconds at 100k chunks on a
2-core machine) while the visitor who asked waits. Its snapshot (`snapshot`) makes the next start fast, but only a
build saves one: after a bulk load, or on a machine that never built the chatbot, the first question paid the build.

The warmer looks every `TICK_SECONDS` at each chatbot's knowledge version (one small query). A chatbot whose version
has not moved for `QUIET_SECONDS` (an import is done, a crawl has settled), or that the process found when it
started, is handed to `Retriever.save_ahead`, which
builds and saves it unless it is too small to be saved or this machine has a snapshot of that version already. The
first question then loads the snapshot (under a second at 100k chunks) and catches up on anything newer. On a
machine with several processes, each of them that runs jobs may build a chatbot the other just built; `Snapshots`
keeps one of the two, and the second finds the first's snapshot the next time it looks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from botyard.db.session import Database
from botyard.retrieval.repository import RetrievalRepository
from botyard.retrieval.retriever import Retriever

log = logging.getLogger(__name__)

TICK_SECONDS = 15.0
QUIET_SECONDS = 30.0
"""A knowledge version unchanged this long is worth a build: an import adds a source every few seconds."""


class IndexWarmer:
    def __init__(
        self,
        database: Database,
        retriever: Retriever,
        *,
        tick: float = TICK_SECONDS,
        quiet: float = QUIET_SECONDS,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.database = database
        self.retriever = retriever
        self.tick = tick
        self.quiet = quiet
        self._clock = clock or time.monotonic
        self._seen: dict[str, tuple[int, float]] = {}
        """Each chatbot's version as last seen, and since when this process has seen it."""
        self._done: dict[str, int] = {}
        """The version each chatbot was last handed over at (built, or found saved or small)."""
        self._first = True
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="index-warmer")

    async def stop(self) -> None:
        """Ends the loop at its next turn: a build under way ends first (it cannot be cut off in its thread)."""
        self._stopping.set()
        if self._task is not None:
            await self._task

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.look()
            except Exception:  # a database hiccup: the next look will do
                log.exception("the index warmer's look failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.tick)

    async def look(self) -> list[str]:
        """One look: hands the chatbots that are quiet and not handed over at their version to `save_ahead`; the
        ones it built."""
        async with self.database.transaction(write=False) as db:
            versions = await RetrievalRepository(db).knowledge_versions()
        now = self._clock()
        # A process that starts takes the knowledge it finds as settled: if it is still changing, the next look sees
        # a new version and waits for it to settle.
        new = now - self.quiet if self._first else now
        self._first = False
        self._seen = {
            uuid: seen if (seen := self._seen.get(uuid)) is not None and seen[0] == version else (version, new)
            for uuid, version in versions.items()
        }
        built = []
        for uuid, (version, since) in self._seen.items():
            if self._stopping.is_set():
                break
            if self._done.get(uuid) == version or now - since < self.quiet:
                continue
            async with self.database.transaction(write=False) as db:
                if await self.retriever.save_ahead(db, uuid):
                    built.append(uuid)
            self._done[uuid] = version
        self._done = {uuid: version for uuid, version in self._done.items() if uuid in versions}
        return built
