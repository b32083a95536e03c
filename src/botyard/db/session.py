"""The database handle the app and the CLI share, and the unit of work that owns each transaction."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from botyard.config import Settings
from botyard.db.engine import create_engine, writer


class Database:
    """An engine plus two session factories: readers, and writers that take SQLite's write lock up front."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._read = async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
        self._write = async_sessionmaker(writer(engine), expire_on_commit=False, autoflush=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> Database:
        return cls(create_engine(settings))

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[AsyncSession]:
        """One unit of work: commits when the block ends normally, rolls back (writing nothing) otherwise."""
        factory = self._write if write else self._read
        async with factory() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()
