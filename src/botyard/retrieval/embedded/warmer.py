"""Large chatbots' indexes saved ahead of their next question, by the process that runs the jobs.

A process that meets a chatbot without an index builds it from the database (16-20 CPU seconds at 100k chunks on a
2-core machine) while the visitor who asked waits. Its snapshot (`snapshot`) makes the next start fast, but only a
build saves one: after a bulk load, or on a machine that never built the chatbot, the first question paid the build.

The warmer looks every `TICK_SECONDS` at each chatbot's knowledge version (one small query). A chatbot whose version
has not moved for `QUIET_SECONDS` (an import is done, a crawl has settled), or that the process found when it
started, is handed to `save_ahead`, which builds and saves it unless it is too small to be saved, this machine has a
snapshot of that version already, or the database shares one (`shared`, PostgreSQL: another machine built it). The
first question then loads the snapshot (under a second at 100k chunks) and catches up on anything newer. A build
holds the machine's build lock (`build_lock`), so the other processes of the machine wait for it and load what it
saved rather than build the same index beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from enum import Enum

from botyard.db.session import Database
from botyard.retrieval.embedded.build_lock import try_lock
from botyard.retrieval.embedded.search import EmbeddedSearch
from botyard.retrieval.embedded.snapshot import SNAPSHOT_ROWS
from botyard.retrieval.knowledge import Knowledge

log = logging.getLogger(__name__)


class Ahead(Enum):
    """What `IndexWarmer.save_ahead` did."""

    BUILT = "built"
    NOT_NEEDED = "not needed"
    """Small, saved already on this machine (or fetched), or being built by another process of the machine."""
    ELSEWHERE = "elsewhere"
    """Another machine sharing the database builds it (`SharedSnapshots.claim`): a later look fetches it."""


TICK_SECONDS = 15.0
QUIET_SECONDS = 30.0
"""A knowledge version unchanged this long is worth a build: an import adds a source every few seconds."""


class IndexWarmer:
    def __init__(
        self,
        database: Database,
        retriever: EmbeddedSearch,
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
            versions = await self.retriever.knowledge(db).knowledge_versions()
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
                done = await self.save_ahead(self.retriever.knowledge(db), uuid, version)
            if done is Ahead.BUILT:
                built.append(uuid)
            if done is not Ahead.ELSEWHERE:  # another machine builds it: the next look fetches what it shares
                self._done[uuid] = version
        self._done = {uuid: version for uuid, version in self._done.items() if uuid in versions}
        return built

    async def save_ahead(self, repository: Knowledge, chatbot_uuid: str, version: int) -> Ahead:
        """Build the chatbot's index and save its snapshot, unless it is too small to be saved or this machine has a
        snapshot of `version` already, or can fetch one that the database shares, or another machine sharing the
        database is building it (`shared`)."""
        snapshots = self.retriever.snapshots
        if snapshots is None or not await self._wanted(repository, chatbot_uuid, version):
            return Ahead.NOT_NEEDED
        building = try_lock(snapshots.root, snapshots.folder(chatbot_uuid).name)
        if building is None:  # another process of the machine builds it: its snapshot will do
            return Ahead.NOT_NEEDED
        try:
            done = await self._elsewhere(repository, chatbot_uuid, version)
        except BaseException:
            building.release()
            raise
        if done is not None:
            building.release()
            return done
        log.info("retrieval index of chatbot %s: building version %d ahead of its question", chatbot_uuid, version)
        await self.retriever.build_now(repository, chatbot_uuid, version, building)
        if self.retriever.shared is not None:
            await self.retriever.shared.published()
        log.info("retrieval index of chatbot %s: saved ahead of its question, version %d", chatbot_uuid, version)
        return Ahead.BUILT

    async def _elsewhere(self, repository: Knowledge, chatbot_uuid: str, version: int) -> Ahead | None:
        """What makes a build needless now that this process holds the machine's lock (None: nothing, build): a
        snapshot saved meanwhile, one fetched from the database, or another machine's claim on the build."""
        if not await self._wanted(repository, chatbot_uuid, version):  # saved meanwhile
            return Ahead.NOT_NEEDED
        shared = self.retriever.shared
        if shared is None:
            return None
        if await shared.fetch(chatbot_uuid, version) and not await self._wanted(repository, chatbot_uuid, version):
            return Ahead.NOT_NEEDED  # the database had this version
        return None if await shared.claim(chatbot_uuid, version) else Ahead.ELSEWHERE

    async def _wanted(self, repository: Knowledge, chatbot_uuid: str, version: int) -> bool:
        """Whether a build of the chatbot is worth it: large enough to be saved, and no snapshot of `version` here."""
        snapshots = self.retriever.snapshots
        assert snapshots is not None
        found = await asyncio.to_thread(snapshots.newest, chatbot_uuid, version)
        if found is not None and found[0] == version:
            return False
        return await repository.chunk_count(chatbot_uuid) >= SNAPSHOT_ROWS
