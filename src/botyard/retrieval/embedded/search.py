"""The embedded search backend: one per process, holding a cache of per-chatbot indexes keyed by the chatbot's
knowledge version.

The database is the truth. Every search reads the chatbot's `knowledge_version` (one indexed primary-key read);
every chunk change bumps it and logs which sources it changed (`ChunkRepository.bump_version`, `KnowledgeChange`).
A cached index of an older version catches up: it reloads only the chunks of the sources changed since its version
and updates itself (`ChatbotIndex.updated`), so one new page costs that page, not the chatbot's whole knowledge. It
is rebuilt from the database when the log does not reach back to its version, when too many sources changed, or when
the index asks for it (dead rows, a change of the chatbot's languages). Several processes (API replicas, workers)
each keep their own caches, all correct, because they all read the same version and the same log.

Rebuilds and catch-ups are serialised per chatbot by an asyncio lock (ten concurrent questions to a chatbot whose
knowledge just changed update its index once), and the cache is bounded by the chunks it holds, least recently used
out. Building, updating and searching a large index run in a worker thread (the loop serves on)."""

from __future__ import annotations

import asyncio
import logging
import weakref

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.config import Settings
from botyard.db.session import Database
from botyard.embedding import Embedder
from botyard.memory import release_free_memory
from botyard.retrieval.backend import Found, Query, UnrelatedVectors
from botyard.retrieval.embedded.build_lock import BuildLock, wait_for_lock
from botyard.retrieval.embedded.building import build, off_loop
from botyard.retrieval.embedded.index import ChatbotIndex, Search
from botyard.retrieval.embedded.index_cache import IndexCache
from botyard.retrieval.embedded.shared import SharedSnapshots
from botyard.retrieval.embedded.snapshot import SNAPSHOT_ROWS, Snapshots, drop_snapshots
from botyard.retrieval.embedded.unrelated import unrelated_evidence
from botyard.retrieval.fusion import Method
from botyard.retrieval.knowledge import Knowledge, KnowledgeReader

log = logging.getLogger(__name__)

CATCH_UP_SOURCES = 1000
"""At most this many changed sources are caught up on; more (a bulk import while the process was idle) rebuild."""

REMEASURE_SHARE = 0.25
"""What unrelated questions find (`baseline`) is measured again once the index has grown or shrunk by this share
since it was measured: on every update it would cost a few dozen searches, and a few chunks move it little."""


class EmbeddedSearch:
    """Hybrid search of per-chatbot indexes held in this process (`SearchBackend`)."""

    def __init__(
        self, embedder: Embedder | None, settings: Settings, knowledge: KnowledgeReader, unrelated: UnrelatedVectors
    ) -> None:
        self.embedder = embedder
        self.knowledge = knowledge
        self._unrelated_vectors = unrelated
        self._cache = IndexCache(settings.retrieval_cache_chunks)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._trim = False
        self.builds = 0
        """How many indexes this backend built whole (tests tell a loaded snapshot from a build by it)."""
        model = (embedder.name, embedder.parts) if embedder else (None, None)
        self.snapshots = Snapshots(settings.data_dir, *model) if settings.index_snapshots else None
        self.shared: SharedSnapshots | None = None
        """The snapshots shared through the database (`shared`; `share_through`)."""

    async def check(self) -> None:
        """Nothing to check: the indexes are built from the chunks as they are needed."""

    async def forget(self, db: AsyncSession, chatbot_uuid: str) -> None:
        """The deleted chatbot's index in this process and its snapshots (another process drops its own copy when it
        finds the chatbot gone, `index`); shared snapshots go with the chatbot's rows."""
        self._cache.pop(chatbot_uuid)
        if self.snapshots is not None:
            await asyncio.to_thread(drop_snapshots, self.snapshots.root.parent, chatbot_uuid)

    async def search(self, db: AsyncSession, chatbot_uuid: str, query: Query, version: int | None) -> Found | None:
        index = await self.index(db, chatbot_uuid, version)
        if index is None:
            return None
        if index.size == 0:
            return Found(hits=[], method=Method.BM25, size=0)
        vector = query.vector if query.method is not Method.BM25 and index.has_vectors else None
        used = query.method if vector is not None else Method.BM25
        search = Search(query.text, vector, query.sources, query.top_k, used)
        ranked = await off_loop(index.size, index.search, search)
        weights = index.lexical.weights(query.text)
        return Found(
            hits=index.hits(ranked, weights, query.covered),
            method=used,
            size=index.size,
            term_weights=weights,
            unseen_terms=index.lexical.unseen(weights),
            unrelated=index.unrelated,
        )

    def share_through(self, database: Database, key: bytes) -> None:
        """Share saved indexes with other machines' processes through `database`, signed with `key` (`shared`)."""
        if self.snapshots is not None:
            self.shared = SharedSnapshots(database, self.snapshots, key)

    async def index(self, db: AsyncSession, chatbot_uuid: str, version: int | None = None) -> ChatbotIndex | None:
        """The chatbot's index at its current knowledge version (caught up or built if needed); None: no chatbot.
        `version`: that version as the caller read it earlier in the request (an answer reads it with the chatbot),
        so that an index already cached at it, or newer, costs no statement; None: read here."""
        repository = self.knowledge(db)
        if version is None:
            version = await repository.knowledge_version(chatbot_uuid)
        if version is None:
            self._cache.pop(chatbot_uuid)  # a deleted chatbot's index is dropped at once
            if self.snapshots is not None:
                await asyncio.to_thread(drop_snapshots, self.snapshots.root.parent, chatbot_uuid)
            return None
        index = self._cache.at(chatbot_uuid, version)
        if index is None:
            async with self._locks.setdefault(chatbot_uuid, asyncio.Lock()):
                index = self._cache.at(chatbot_uuid, version)  # made by whoever held the lock before us
                if index is None:
                    index = await self._current(repository, chatbot_uuid, version)
                    self._cache.store(chatbot_uuid, index)
        # The memory an index left behind goes back to the system (`memory`) after a catch-up (100k chunks, 14
        # changes grew the RSS 120 MB, now 50) or a built index replaced by its snapshot (`_built`).
        if self._trim:
            self._trim = False
            await off_loop(index.size, release_free_memory)
        return index

    async def build_now(self, repository: Knowledge, chatbot_uuid: str, version: int, building: BuildLock) -> None:
        """Build the chatbot's index at `version` and save it (the caller holds the machine's `building` lock, which
        goes once it is saved); an index this process did not hold goes too (`warmer`)."""
        held = chatbot_uuid in self._cache
        async with self._locks.setdefault(chatbot_uuid, asyncio.Lock()):
            self._cache.store(chatbot_uuid, await self._built(repository, chatbot_uuid, version, building))
        if self.snapshots is not None:
            await self.snapshots.saved()
        if not held:
            self._cache.pop(chatbot_uuid)

    async def _current(self, repository: Knowledge, chatbot_uuid: str, version: int) -> ChatbotIndex:
        """The chatbot's index at `version`, from the best there is: the index this process holds, else this
        machine's newest snapshot, as it is or caught up (`_at`); else one built once per machine (`_built_once`)."""
        older = self._cache.get(chatbot_uuid) or await self._loaded(chatbot_uuid, version)
        index = await self._at(repository, chatbot_uuid, older, version) if older is not None else None
        older = None  # a rebuild does not hold the index it replaces
        return index if index is not None else await self._built_once(repository, chatbot_uuid, version)

    async def _at(
        self, repository: Knowledge, chatbot_uuid: str, older: ChatbotIndex, version: int
    ) -> ChatbotIndex | None:
        """`older` (held or loaded, never newer than `version`) at `version`: as it is, or caught up; None when a
        rebuild is right (`_caught_up`). A catch-up leaves memory to give back (`index`)."""
        if older.version >= version:
            return older
        index = await self._caught_up(repository, chatbot_uuid, older, version)
        self._trim = index is not None
        return index

    async def _loaded(
        self, chatbot_uuid: str, version: int, *, here: bool = True, shared: bool = False
    ) -> ChatbotIndex | None:
        """The chatbot's newest snapshot at or before `version` (`snapshot`): with `here`, this machine's; when it
        has none (or without `here`) and with `shared`, the one another machine shared, fetched first (`shared`);
        None when there is none."""
        if self.snapshots is None:
            return None
        index = await asyncio.to_thread(self.snapshots.load, chatbot_uuid, version) if here else None
        if index is None and shared and self.shared is not None and await self.shared.fetch(chatbot_uuid, version):
            index = await asyncio.to_thread(self.snapshots.load, chatbot_uuid, version)
        if index is not None:
            log.info(
                "retrieval index of chatbot %s loaded: version %d, %d rows", chatbot_uuid, index.version, index.size
            )
        return index

    async def _built_once(self, repository: Knowledge, chatbot_uuid: str, version: int) -> ChatbotIndex:
        """The chatbot's index built, unless another process of this machine is building it (`build_lock`): then,
        once it is done, its snapshot loaded (and caught up); or a snapshot another machine shared."""
        if self.snapshots is None:
            return await self._built(repository, chatbot_uuid, version)
        building, waited = await wait_for_lock(self.snapshots.root, self.snapshots.folder(chatbot_uuid).name)
        try:
            loaded = await self._loaded(chatbot_uuid, version, here=waited, shared=True)
            if loaded is not None:
                loaded = await self._at(repository, chatbot_uuid, loaded, version)
        except BaseException:
            if building is not None:
                building.release()
            raise
        if loaded is None:
            return await self._built(repository, chatbot_uuid, version, building)  # which lets `building` go
        if building is not None:
            building.release()
        return loaded

    async def _built(
        self, repository: Knowledge, chatbot_uuid: str, version: int, building: BuildLock | None = None
    ) -> ChatbotIndex:
        """The chatbot's index built from the database; one large enough is then saved (`snapshot`), after the
        answer: only built indexes are, so a snapshot loaded and caught up over many changes is replaced at the next
        rebuild, which `CATCH_UP_SOURCES` and the dead rows' share (`DEAD_SHARE`) bound."""
        try:
            rows, vectors = await repository.chunks(chatbot_uuid, self.embedder.name if self.embedder else None)
            parts, unrelated = self.embedder.parts if self.embedder else None, await self._unrelated_vectors()
            snapshots = self.snapshots if len(rows) >= SNAPSHOT_ROWS else None
            workdir = snapshots.private() if snapshots is not None else None
            index = await off_loop(len(rows), build, version, rows, vectors, parts, unrelated, workdir)
        except BaseException:
            if building is not None:
                building.release()
            raise
        self.builds += 1
        log.info("retrieval index of chatbot %s built: version %d, %d chunks", chatbot_uuid, version, index.size)
        if self.snapshots is None:
            return index

        def saved() -> None:  # `building` goes once the snapshot is saved: then the waiters load it
            if building is not None:
                building.release()
            if self.shared is not None and index.workdir is not None:
                self.shared.publish_later(chatbot_uuid, version)

        current = lambda: self._cache.get(chatbot_uuid)  # noqa: E731
        lock = self._locks.setdefault(chatbot_uuid, asyncio.Lock())
        self.snapshots.save_later(chatbot_uuid, index, lock, current, self._serve, saved)
        return index

    def _serve(self, chatbot_uuid: str, loaded: ChatbotIndex) -> None:
        """Serve the snapshot just saved and loaded in place of the index built (`Snapshots.save_later`), unless
        the cache let it go meanwhile (under the chatbot's lock, nothing else replaced it)."""
        self._trim = self._cache.replace(chatbot_uuid, loaded) or self._trim

    async def _caught_up(
        self, repository: Knowledge, chatbot_uuid: str, older: ChatbotIndex, version: int
    ) -> ChatbotIndex | None:
        """`older` updated with the sources the versions since changed (`KnowledgeChange`); None when a rebuild is
        right: the log lacks a version, too many sources changed, or the index refuses (`ChatbotIndex.updated`)."""
        sources = await repository.changed_sources(chatbot_uuid, older.version, version)
        if sources is None or len(sources) > CATCH_UP_SOURCES:
            return None
        rows, vectors = await repository.chunks(chatbot_uuid, self.embedder.name if self.embedder else None, sources)
        try:
            index = await off_loop(older.size, older.updated, version, sources, rows, vectors)
        except Exception:
            # The older index may be half changed (its tantivy index is shared): it must never be updated again.
            self._cache.pop(chatbot_uuid)
            log.exception("retrieval index of chatbot %s could not be updated; rebuilding it", chatbot_uuid)
            return None
        if index is not None and abs(index.size - index.unrelated_size) > REMEASURE_SHARE * index.unrelated_size:
            unrelated = await self._unrelated_vectors()
            index.unrelated = await off_loop(index.size, unrelated_evidence, index, unrelated) if index.size else ()
            index.unrelated_size = index.size
        return index

    @property
    def cached_chunks(self) -> int:  # held by the cache (tests of its bound)
        return self._cache.chunks
