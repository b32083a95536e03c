"""Engine construction for SQLite (embedded default) and PostgreSQL.

SQLite runs in WAL mode with foreign keys. Writes go through an engine of their own whose transactions start with
`BEGIN IMMEDIATE` (a deferred transaction that reads and then writes can fail at once with "database is locked"
when another writer got in between; an immediate one holds the lock from its first statement) and whose busy
timeout is zero: SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20, 25... ms between tries, in the driver's
thread, so a writer often slept on past the moment the lock came free. `Database` waits for the lock itself
instead, in short asynchronous steps. Readers keep a busy timeout (WAL readers rarely need it).

The few indexed reads that start every answer (the key, the session, its history...) have an engine of their own
whose driver calls run on the event loop's thread (`create_sqlite_brief_reader`): aiosqlite hands each call to a
thread of its own and back, four hand-offs a statement, and a read transaction of five statements cost 1.7-2.0 ms
of CPU that way against 0.4 ms on the loop's thread (measured on this project's machine). Its busy timeout is zero,
so it never blocks the loop: a read that finds the database busy runs again on the threaded engine (`Database`).

The answer's few indexed writes (its message, stored and finished) have such an engine too
(`create_sqlite_brief_writer`). A busy loop made the hand-offs worse there than CPU: each one waits for the loop's
next turn, and the process's one write transaction at a time held SQLite's lock across all those turns, so under
load the writes queued behind each other. This engine does not checkpoint (a checkpoint syncs the database file to
disk, not something for the loop's thread); `Database` has the threaded engine do it.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from typing import Any

import aiosqlite
from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import PoolResetState
from sqlalchemy.util import await_only

from botyard.config import Settings

READ_BUSY_TIMEOUT_MS = 30_000
LOCK_WAIT_SECONDS = 30.0
"""How long a SQLite writer waits for another process to release the write lock before it fails."""
FIRST_RETRY_SECONDS = 0.0005
LAST_RETRY_SECONDS = 0.004
IDLE_IN_TRANSACTION_SECONDS = 300
"""PostgreSQL ends a session whose transaction stayed idle (no statement) this long, and frees its locks."""
WRITER_POOL = {"pool_size": 2, "max_overflow": 2}
"""A process runs one SQLite write transaction at a time (`Database`): two connections are plenty."""


def create_engine(settings: Settings) -> AsyncEngine:
    url = settings.resolved_database_url
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, pool_reset_on_return=None, **_pool(settings))
        _configure_sqlite(engine, busy_timeout_ms=READ_BUSY_TIMEOUT_MS, begin="DEFERRED")
        return engine
    # A transaction left open (its task cancelled inside the driver, see `session.uninterrupted`) would hold its
    # locks for as long as the process lives; the server ends one idle that long. No unit of work of ours waits
    # between two statements for more than a few seconds.
    idle = {"idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_SECONDS * 1000)}
    return create_async_engine(url, pool_pre_ping=True, connect_args={"server_settings": idle}, **_pool(settings))


def create_sqlite_writer(settings: Settings) -> AsyncEngine | None:
    """The SQLite write engine (see the module's note); None for PostgreSQL, whose writers share the one engine."""
    url = settings.resolved_database_url
    if not url.startswith("sqlite"):
        return None
    engine = create_async_engine(url, echo=settings.database_echo, pool_reset_on_return=None, **WRITER_POOL)
    _configure_sqlite(engine, busy_timeout_ms=0, begin="IMMEDIATE")
    return engine


class _OnTheLoop(aiosqlite.Connection):
    """An aiosqlite connection whose calls run on the caller's (the event loop's) thread, not on its own thread:
    only for statements that take microseconds (see the module). aiosqlite still opens and closes it."""

    async def _execute(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if not self._running or not self._connection:
            raise ValueError("Connection closed")
        return fn(*args, **kwargs)


def create_sqlite_brief_reader(settings: Settings) -> AsyncEngine | None:
    """The SQLite engine of brief reads on the loop's thread (see the module); None for PostgreSQL, whose driver
    runs on the loop already."""
    return _on_the_loop(settings, _pool(settings), begin="DEFERRED", checkpoints=True)


def create_sqlite_brief_writer(settings: Settings) -> AsyncEngine | None:
    """The SQLite engine of brief writes on the loop's thread, which never checkpoints (see the module); None for
    PostgreSQL."""
    return _on_the_loop(settings, {"echo": settings.database_echo, **WRITER_POOL}, begin="IMMEDIATE", checkpoints=False)


def _on_the_loop(settings: Settings, pool: dict[str, Any], *, begin: str, checkpoints: bool) -> AsyncEngine | None:
    url = settings.resolved_database_url
    if not url.startswith("sqlite"):
        return None
    path = make_url(url).database or ""

    async def connect() -> aiosqlite.Connection:
        # Made on aiosqlite's thread, used from the loop's: the driver must not insist on one thread. No busy wait
        # from the start (the driver's default is 5 s): the set-up's own pragmas run on the loop's thread too.
        return await _OnTheLoop(lambda: sqlite3.connect(path, timeout=0, check_same_thread=False), 64)

    engine = create_async_engine(url, async_creator=connect, pool_reset_on_return=None, **pool)
    _configure_sqlite(engine, busy_timeout_ms=0, begin=begin, checkpoints=checkpoints)
    return engine


def _begin_immediately(conn: Connection) -> None:
    """`BEGIN IMMEDIATE`, trying again in short asynchronous steps while another process holds SQLite's write lock
    (the busy timeout is zero: see the module), for `LOCK_WAIT_SECONDS` at most. It runs where the transaction
    begins, so the unit of work around it keeps whatever it was given before its first statement (`session.add`)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LOCK_WAIT_SECONDS
    delay = FIRST_RETRY_SECONDS
    while True:
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            return
        except OperationalError as error:
            if "locked" not in str(error.orig) or loop.time() > deadline:
                raise
        await_only(asyncio.sleep(delay * random.uniform(0.5, 1.5)))  # on the loop, inside SQLAlchemy's greenlet
        delay = min(delay * 2, LAST_RETRY_SECONDS)


def _pool(settings: Settings) -> dict[str, Any]:
    return {
        "echo": settings.database_echo,
        "pool_size": settings.database_pool_size,
        "max_overflow": settings.database_pool_overflow,
    }


def _configure_sqlite(engine: AsyncEngine, *, busy_timeout_ms: int, begin: str, checkpoints: bool = True) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, emit BEGIN so that we choose its mode below.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        if not checkpoints:  # the connection's commits leave the WAL to grow; someone else checkpoints it
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if begin == "IMMEDIATE":
            _begin_immediately(conn)
        else:
            conn.exec_driver_sql(f"BEGIN {begin}")

    # The pool's own reset (`pool_reset_on_return`, off above) rolls back every connection returned to it, a round
    # trip to the driver's thread even after a commit: one per transaction. This one rolls back only a connection
    # still in a transaction (a failed or cancelled unit of work that did not end its own), as the pool would.
    @event.listens_for(engine.sync_engine, "reset")
    def _on_reset(dbapi_connection: Any, _record: Any, state: PoolResetState) -> None:
        if state.asyncio_safe and dbapi_connection.driver_connection.in_transaction:
            dbapi_connection.rollback()
