from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.pool import QueuePool

from botyard.config import Settings
from botyard.db.engine import create_engine, create_sqlite_writer
from botyard.models import Account
from tests.support.database import Db


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
