from __future__ import annotations

import asyncio
import os
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
from botyard.db.engine import IDLE_IN_TRANSACTION_SECONDS, create_engine, create_sqlite_writer
from botyard.db.session import CHECKPOINT_EVERY, Database
from botyard.models import Account
from tests.support.database import POSTGRES_ENV, Db
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


@pytest.mark.skipif(not os.environ.get(POSTGRES_ENV), reason=f"{POSTGRES_ENV} is not set (CI sets it)")
def test_postgresql_ends_a_transaction_left_idle(tmp_path: Path) -> None:
    async def shown() -> Any:
        engine = create_engine(Settings(data_dir=tmp_path, database_url=os.environ[POSTGRES_ENV]))
        try:
            async with engine.connect() as connection:
                return await connection.scalar(text("SHOW idle_in_transaction_session_timeout"))
        finally:
            await engine.dispose()

    assert asyncio.run(shown()) == f"{IDLE_IN_TRANSACTION_SECONDS // 60}min"


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


def with_thread_function(dbapi_connection: Any, _record: object) -> None:
    """Teaches a new connection `running_thread()`: the thread SQLite runs the statement on."""
    dbapi_connection.create_function("running_thread", 0, threading.get_ident)


async def running_thread(session: AsyncSession) -> int:
    return int((await session.execute(text("SELECT running_thread()"))).scalar_one())


def test_brief_reads_run_on_the_event_loops_thread_and_others_do_not(tmp_path: Path) -> None:
    """The answer path's few indexed reads skip aiosqlite's thread hand-offs (`db/engine`); every other read keeps
    them, so that a long one never holds up the loop. SQLite itself says on which thread it runs a statement."""
    database = _note_table(Settings(data_dir=tmp_path))
    assert database.brief_reader is not None
    asyncio.run(database.dispose())  # the connections made from now on know the function below

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


def test_a_brief_read_block_that_meets_a_lock_goes_on_whole_through_the_ordinary_reader(tmp_path: Path) -> None:
    """A WAL reader meets a lock only at its first statement: the block's first statement, and every one after
    it, then run on the ordinary reader, which waits for the lock on its own thread (the loop runs on meanwhile)."""
    settings = Settings(data_dir=tmp_path)
    database = _note_table(settings)
    asyncio.run(database.dispose())  # an exclusive lock needs every other connection closed
    for engine in (database.engine, database.brief_reader):
        assert engine is not None
        event.listen(engine.sync_engine, "connect", with_thread_function)
    path = make_url(settings.resolved_database_url).database or ""
    locker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    locker.execute("PRAGMA locking_mode=EXCLUSIVE")
    locker.execute("BEGIN EXCLUSIVE")
    locker.execute("INSERT INTO note VALUES ('never committed')")
    release = threading.Timer(0.3, lambda: (locker.execute("ROLLBACK"), locker.close()))

    async def read() -> tuple[list[str], int]:
        async with database.brief_read() as db:
            return await _notes(db), await running_thread(db)

    async def check() -> tuple[tuple[tuple[list[str], int], int], int]:
        release.start()
        found = await with_loop_ticks(read(), 0.01)
        await database.dispose()
        return found, threading.get_ident()

    ((notes, second_statements_thread), ticks), loop_thread = asyncio.run(check())
    assert notes == ["kept"]
    assert second_statements_thread != loop_thread  # not the brief reader's: the block went on with the other
    assert ticks >= 10


def test_a_brief_write_block_that_raises_writes_nothing(tmp_path: Path) -> None:
    database = _note_table(Settings(data_dir=tmp_path))

    async def half() -> None:
        async with database.brief_write() as db:
            await db.execute(text("INSERT INTO note VALUES ('half')"))
            raise RuntimeError("boom")

    async def check() -> list[str]:
        with pytest.raises(RuntimeError, match="boom"):
            await half()
        async with database.brief_write() as db:  # SQLite's write lock is free again
            await db.execute(text("INSERT INTO note VALUES ('after')"))
        async with database.brief_read() as db:
            notes = await _notes(db)
        await database.dispose()
        return notes

    assert asyncio.run(check()) == ["kept", "after"]


def test_brief_writes_run_on_the_event_loops_thread_and_commit(tmp_path: Path) -> None:
    """The answer's few indexed writes skip aiosqlite's thread hand-offs too (`db/engine`), and commit as any write."""
    database = _note_table(Settings(data_dir=tmp_path))
    assert database.brief_writer is not None
    asyncio.run(database.dispose())  # the connections made from now on know the function below

    async def write(session: AsyncSession) -> int:
        await session.execute(text("INSERT INTO note VALUES ('briefly')"))
        return await running_thread(session)

    async def check() -> tuple[int, int, list[str]]:
        assert database.brief_writer is not None
        event.listen(database.brief_writer.sync_engine, "connect", with_thread_function)
        writer_thread = await database.write_briefly(write)
        async with database.transaction(write=False) as session:
            notes = await _notes(session)
        await database.dispose()
        return threading.get_ident(), writer_thread, notes

    loop_thread, writer_thread, notes = asyncio.run(check())
    assert writer_thread == loop_thread
    assert notes == ["kept", "briefly"]


def test_a_failed_brief_write_writes_nothing_and_frees_the_lock(tmp_path: Path) -> None:
    database = _note_table(Settings(data_dir=tmp_path))

    async def fail(session: AsyncSession) -> None:
        await session.execute(text("INSERT INTO note VALUES ('half')"))
        raise RuntimeError("boom")

    async def insert(session: AsyncSession) -> None:
        await session.execute(text("INSERT INTO note VALUES ('after')"))

    async def check() -> list[str]:
        with pytest.raises(RuntimeError, match="boom"):
            await database.write_briefly(fail)
        await asyncio.wait_for(database.write_briefly(insert), 5)  # SQLite's write lock is free again
        async with database.transaction(write=False) as session:
            notes = await _notes(session)
        await database.dispose()
        return notes

    assert asyncio.run(check()) == ["kept", "after"]


def test_a_brief_write_waits_for_another_processs_lock_off_the_loop(tmp_path: Path) -> None:
    """Another connection (as another process would) holds SQLite's write lock for 0.3 s: the brief write tries
    again in asynchronous steps, so the loop runs on meanwhile, and then writes."""
    settings = Settings(data_dir=tmp_path)
    database = _note_table(settings)
    locker = sqlite3.connect(
        make_url(settings.resolved_database_url).database or "", isolation_level=None, check_same_thread=False
    )
    locker.execute("BEGIN IMMEDIATE")
    locker.execute("INSERT INTO note VALUES ('rolled back')")
    release = threading.Timer(0.3, lambda: locker.execute("ROLLBACK"))

    async def insert(session: AsyncSession) -> None:
        await session.execute(text("INSERT INTO note VALUES ('waited')"))

    async def check() -> tuple[tuple[None, int], list[str]]:
        release.start()
        written = await with_loop_ticks(database.write_briefly(insert), 0.01)
        async with database.transaction(write=False) as session:
            notes = await _notes(session)
        await database.dispose()
        return written, notes

    try:
        (_, ticks), notes = asyncio.run(check())
    finally:
        release.join()
        locker.close()
    assert notes == ["kept", "waited"]
    assert ticks >= 10


def test_the_wal_stays_small_under_brief_writes(tmp_path: Path) -> None:
    """The brief writer never checkpoints on the loop's thread; every `CHECKPOINT_EVERY` commits the threaded engine
    does, so the WAL is reused from its start instead of growing with every answer: after 10 x CHECKPOINT_EVERY
    commits it holds no more than about two rounds of them (without the checkpoints, all ten)."""
    settings = Settings(data_dir=tmp_path)
    database = _note_table(settings)
    wal = (make_url(settings.resolved_database_url).database or "") + "-wal"

    async def insert(session: AsyncSession) -> None:
        await session.execute(text("INSERT INTO note VALUES (:text)"), {"text": "x" * 2048})

    async def write_all() -> list[int]:
        sizes = []
        for _ in range(10 * CHECKPOINT_EVERY):
            await database.write_briefly(insert)
            await asyncio.sleep(0)  # the checkpoint's task gets its turns
            sizes.append(os.path.getsize(wal))  # noqa: ASYNC240 (a stat of a local file)
        await database.dispose()
        return sizes

    sizes = asyncio.run(write_all())
    a_round = sizes[CHECKPOINT_EVERY // 2] * 2  # the WAL's size after a round of commits, checkpointed or not
    assert max(sizes) < 3 * a_round
