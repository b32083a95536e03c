from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.pool import QueuePool

from botyard.config import Settings
from botyard.db.engine import create_engine, create_sqlite_writer
from botyard.db.session import Database
from botyard.models import Account
from tests.support.database import Db
from tests.support.loop import with_loop_ticks


def test_concurrent_read_then_write_transactions_all_succeed(client: object, db: Db) -> None:
    """On SQLite, deferred transactions that read and then write fail at once with "database is locked" when they
    overlap; write transactions take the lock up front and wait for each other instead."""

    async def read_then_write(index: int) -> None:
        async with db.database.transaction() as session:
            await session.scalar(select(func.count()).select_from(Account))
            await asyncio.sleep(0.01)
            session.add(Account(email=f"user{index}@example.com"))

    async def run_all() -> None:
        await asyncio.gather(*(read_then_write(index) for index in range(12)))

    assert db.client.portal is not None
    db.client.portal.call(run_all)

    async def count(session: AsyncSession) -> int:
        return int(await session.scalar(select(func.count()).select_from(Account)) or 0)

    assert db.run(count) == 12


def test_a_failed_transaction_writes_nothing(client: object, db: Db) -> None:
    async def fail(session: AsyncSession) -> None:
        session.add(Account(email="half@example.com"))
        await session.flush()
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        db.run(fail)

    async def emails(session: AsyncSession) -> list[str]:
        return list(await session.scalars(select(Account.email)))

    assert "half@example.com" not in db.run(emails)


def test_the_pool_follows_the_settings(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_pool_size=3, database_pool_overflow=7)
    engine = create_engine(settings)
    assert isinstance(engine.pool, QueuePool)
    assert (engine.pool.size(), engine.pool._max_overflow) == (3, 7)
    asyncio.run(engine.dispose())


def test_a_sqlite_connection_returned_in_a_transaction_is_rolled_back(tmp_path: Path) -> None:
    """The pool does not roll back every connection returned to it (a round trip after each commit), only one still
    in a transaction: here one begun on the driver itself, which SQLAlchemy knows nothing of."""
    settings = Settings(data_dir=tmp_path)

    async def check() -> None:
        engine = create_sqlite_writer(settings)
        assert engine is not None
        async with engine.connect() as connection:
            await connection.exec_driver_sql("CREATE TABLE note (text TEXT)")
            await connection.commit()
        connection = await engine.connect()
        driver = (await connection.get_raw_connection()).driver_connection
        await driver.execute("BEGIN IMMEDIATE")
        await driver.execute("INSERT INTO note VALUES ('left open')")
        await connection.close()
        assert not driver.in_transaction
        async with engine.connect() as connection:  # the write lock is free again, and nothing was written
            assert (await connection.exec_driver_sql("SELECT count(*) FROM note")).scalar() == 0
        await engine.dispose()

    asyncio.run(check())


def _note_table(settings: Settings) -> Database:
    database = Database.from_settings(settings)

    async def create() -> None:
        async with database.transaction() as session:
            await session.execute(text("CREATE TABLE note (text TEXT)"))
            await session.execute(text("INSERT INTO note VALUES ('kept')"))

    asyncio.run(create())
    return database


async def _notes(session: AsyncSession) -> list[str]:
    return list((await session.execute(text("SELECT text FROM note"))).scalars())


def test_brief_reads_run_on_the_event_loops_thread_and_others_do_not(tmp_path: Path) -> None:
    """The answer path's few indexed reads skip aiosqlite's thread hand-offs (`db/engine`); every other read keeps
    them, so that a long one never holds up the loop. SQLite itself says on which thread it runs a statement."""
    database = _note_table(Settings(data_dir=tmp_path))
    assert database.brief_reader is not None
    asyncio.run(database.dispose())  # the connections made from now on know the function below

    def with_thread_function(dbapi_connection: Any, _record: object) -> None:
        dbapi_connection.create_function("running_thread", 0, threading.get_ident)

    async def running_thread(session: AsyncSession) -> int:
        return int((await session.execute(text("SELECT running_thread()"))).scalar_one())

    async def check() -> tuple[int, int, int]:
        for engine in (database.engine, database.brief_reader):
            assert engine is not None
            event.listen(engine.sync_engine, "connect", with_thread_function)
        brief = await database.read_briefly(running_thread)
        async with database.transaction(write=False) as session:
            ordinary = await running_thread(session)
        await database.dispose()
        return threading.get_ident(), brief, ordinary

    loop_thread, brief, ordinary = asyncio.run(check())
    assert brief == loop_thread
    assert ordinary != loop_thread


def test_a_brief_read_of_a_locked_database_waits_off_the_loop(tmp_path: Path) -> None:
    """A brief read never waits on the loop's thread: when the database is locked it reads again through the
    ordinary reader, which waits for the lock on its own thread while the loop goes on."""
    settings = Settings(data_dir=tmp_path)
    database = _note_table(settings)
    asyncio.run(database.dispose())  # an exclusive lock needs every other connection closed
    path = make_url(settings.resolved_database_url).database or ""
    locker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    locker.execute("PRAGMA locking_mode=EXCLUSIVE")
    locker.execute("BEGIN EXCLUSIVE")
    locker.execute("INSERT INTO note VALUES ('never committed')")
    release = threading.Timer(0.3, lambda: (locker.execute("ROLLBACK"), locker.close()))

    async def check() -> tuple[list[str], int]:
        release.start()
        found = await with_loop_ticks(database.read_briefly(_notes), 0.01)
        await database.dispose()
        return found

    found, ticks = asyncio.run(check())
    assert found == ["kept"]
    assert ticks >= 10  # the loop ran on through the 0.3 s the lock was held
