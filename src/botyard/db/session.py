"""The database handle the app and the CLI share, and the unit of work that owns each transaction."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from botyard.config import Settings
from botyard.db.brief import BriefReadSession
from botyard.db.engine import (
    create_engine,
    create_sqlite_brief_reader,
    create_sqlite_brief_writer,
    create_sqlite_writer,
)
from botyard.db.writer import WriterSession

T = TypeVar("T")
log = logging.getLogger(__name__)

CHECKPOINT_EVERY = 100
"""The brief writer's commits between two checkpoints of the WAL: SQLite's own rule is a checkpoint once the WAL
holds 1,000 pages (`wal_autocheckpoint`), and a brief write adds a few (an answer's two or three, about ten)."""


async def uninterrupted(work: Awaitable[T]) -> T:
    """`work`, a brief unit of work, run to its end even when the caller is cancelled; the cancellation reaches the
    caller once it has ended. A cancellation that lands inside a PostgreSQL driver call can leave the connection
    hung, or open in its transaction and holding its locks (asyncpg #1265, SQLAlchemy #12099): the next writer of
    those rows then waits forever. Whatever cancels tasks that write (a runner stopping, a job's time limit) wraps
    their units of work in this."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.wait([task])  # cancelling the wait leaves the task running
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()


class Database:
    """An engine for readers and the way to write: on PostgreSQL the same engine; on SQLite a write engine whose
    transactions take the write lock up front, one at a time per process (`create_sqlite_writer`)."""

    def __init__(
        self,
        engine: AsyncEngine,
        sqlite_writer: AsyncEngine | None = None,
        brief_reader: AsyncEngine | None = None,
        brief_writer: AsyncEngine | None = None,
    ) -> None:
        self.engine = engine
        self.sqlite_writer = sqlite_writer
        self.brief_reader = brief_reader
        """SQLite's engine of brief reads on the loop's thread (`brief_read`); None: the one reader."""
        self.brief_writer = brief_writer if sqlite_writer is not None else None
        """SQLite's engine of brief writes on the loop's thread (`brief_write`); None: the one writer."""
        self._read = async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
        self._brief = async_sessionmaker(
            brief_reader or engine, class_=BriefReadSession, expire_on_commit=False, autoflush=False
        )
        self._write = async_sessionmaker(
            sqlite_writer or engine, class_=WriterSession, expire_on_commit=False, autoflush=False
        )
        self._brief_write = async_sessionmaker(
            self.brief_writer or engine, class_=WriterSession, expire_on_commit=False, autoflush=False
        )
        self._writers = asyncio.Lock()
        self._brief_commits = 0
        self._checkpointing: asyncio.Task[None] | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Database:
        return cls(
            create_engine(settings),
            create_sqlite_writer(settings),
            create_sqlite_brief_reader(settings),
            create_sqlite_brief_writer(settings),
        )

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[AsyncSession]:
        """One unit of work: commits when the block ends normally, rolls back (writing nothing) otherwise."""
        if write and self.sqlite_writer is not None:
            async with self._sqlite_write(self._write) as session:
                yield session
            return
        async with (self._write if write else self._read)() as session, session.begin():
            yield session

    @asynccontextmanager
    async def brief_read(self) -> AsyncIterator[AsyncSession]:
        """A unit of a few indexed reads (no statement that scans) on the brief reader: on SQLite its statements run
        on the event loop's thread (see `engine`). Where the database is busy (rare for a WAL reader), the unit goes
        on in an ordinary read transaction, which may wait for it (`BriefReadSession`).

        It earns its keep, with `brief_write`, now that SQLite's ordinary writer takes its lock only at its first
        statement (`WriterSession`) too: measured on 2026-11-28 with bench/chat.py (SQLite, 10k chunks, a
        shared 2-core machine, four runs of each variant alternated; means, with the brief engines against without
        them, both then falling back to `transaction`). One client: first byte p50 26 ms against 34, p95 33
        against 44 (runs 30.6-36.5 against 38.5-49.8), full answer p95 37 against 50, server CPU 32 ms an answer
        against 40. Two workers, eight clients: 48 answers/s against 33 (runs 40.5-55.0 against 27.8-36.7), server
        CPU 35 ms an answer against 42, first byte p50 118 ms against 157, full answer p95 271 against 366; only the
        first byte's p95 was within the runs' noise (168-304 ms against 227-259)."""
        if self.brief_reader is None:
            async with self.transaction(write=False) as session:
                yield session
            return
        session = self._brief()
        session.fallback = self.engine
        try:
            yield session
            await session.commit()
        finally:
            await session.close()

    @asynccontextmanager
    async def brief_write(self) -> AsyncIterator[AsyncSession]:
        """A unit of a few indexed writes on the brief writer: on SQLite its statements run on the event loop's
        thread (see `engine`), and every `CHECKPOINT_EVERY` commits the threaded engine checkpoints the WAL. Waiting
        for another process's write lock is asynchronous, as for any writer. It commits when the block ends normally
        and writes nothing otherwise. Worth it, as the brief reads are: see `brief_read` for what the answer path
        lost without both (measured on 2026-11-28)."""
        if self.brief_writer is None:
            async with self.transaction() as session:
                yield session
            return
        async with self._sqlite_write(self._brief_write, at_once=True) as session:
            yield session
        self._brief_commits += 1
        if self._brief_commits % CHECKPOINT_EVERY == 0 and (self._checkpointing is None or self._checkpointing.done()):
            self._checkpointing = asyncio.create_task(self._checkpoint())

    async def read_briefly(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """`work` in one `brief_read`, for a caller that has the reads as one function."""
        async with self.brief_read() as session:
            return await work(session)

    async def write_briefly(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """`work` in one `brief_write`, for a caller that has the writes as one function."""
        async with self.brief_write() as session:
            return await work(session)

    async def _checkpoint(self) -> None:
        """A passive checkpoint (it waits for no reader) on a connection of the threaded engine. It takes its turn
        among this process's writers, as SQLite's own does in the commit that runs it: with a writer appending
        meanwhile it would never catch up with the end of the WAL, which is only reused from its start once it has."""
        try:
            async with self.engine.connect() as connection, self._writers:
                driver = (await connection.get_raw_connection()).driver_connection
                assert driver is not None
                await driver.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except Exception:  # the next one will do; SQLite's own checkpoints run on the other connections' commits
            log.warning("checkpointing the database's WAL failed", exc_info=True)

    @asynccontextmanager
    async def _sqlite_write(
        self, sessions: async_sessionmaker[WriterSession], *, at_once: bool = False
    ) -> AsyncIterator[AsyncSession]:
        """A unit of work of SQLite's write engine: it takes this process's writer lock and SQLite's at its first
        statement (`WriterSession`), or `at_once`, and gives the process lock back when it ends. The process lock
        queues this process's writers in order, without polling each other; only another process holding SQLite's
        lock makes the `BEGIN IMMEDIATE` try again (`engine`)."""
        session = sessions()
        session.turns = self._writers
        try:
            if at_once:
                await session.connection()  # begins the transaction, with its turn
            yield session
            await session.commit()
        except BaseException:
            await session.rollback()
            raise
        finally:
            await session.close()
            session.release_turn()

    async def ping(self) -> None:
        """Raises unless the database answers a trivial query (readiness)."""
        async with self.transaction(write=False) as session:
            await session.execute(text("SELECT 1"))

    async def dispose(self) -> None:
        if self._checkpointing is not None and not self._checkpointing.done():
            await self._checkpointing
        await self.engine.dispose()
        for engine in (self.brief_reader, self.brief_writer, self.sqlite_writer):
            if engine is not None:
                await engine.dispose()
