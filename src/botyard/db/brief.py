"""SQLite's unit of brief reads (`Database.brief_read`), which goes on through the ordinary reader when the
database is busy.

The brief reader's statements run on the event loop's thread with a busy timeout of zero (`engine`), so that a read
never blocks the loop: one that finds the database locked fails at once. A WAL reader meets a lock only as its
transaction begins, at its first statement (it then holds its snapshot to the end): so only the first statement
can fail that way, and nothing has been read before it. The session then ends its transaction and runs that
statement, and the rest of the unit, on the ordinary reader, which waits for the lock on aiosqlite's thread while
the loop goes on; the unit of work around it reads one consistent snapshot either way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

T = TypeVar("T")


class BriefReadSession(AsyncSession):
    """An `AsyncSession` of the brief reader whose first statement, on a locked database, goes to `fallback`."""

    fallback: AsyncEngine | None = None
    """The ordinary reader, until the first statement has run."""

    async def _first(self, call: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        fallback, self.fallback = self.fallback, None
        if fallback is None:
            return await call(*args, **kwargs)
        try:
            return await call(*args, **kwargs)
        except OperationalError as error:
            if "locked" not in str(error.orig):
                raise
        await self.rollback()  # nothing was read: the brief transaction ends, the next begins on the other engine
        self.sync_session.bind = fallback.sync_engine
        return await call(*args, **kwargs)

    # Every method that may speak to the database goes through `_first`.
    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        return await self._first(super().execute, *args, **kwargs)

    async def scalar(self, *args: Any, **kwargs: Any) -> Any:
        return await self._first(super().scalar, *args, **kwargs)

    async def scalars(self, *args: Any, **kwargs: Any) -> Any:
        return await self._first(super().scalars, *args, **kwargs)

    async def get(self, *args: Any, **kwargs: Any) -> Any:
        return await self._first(super().get, *args, **kwargs)

    async def get_one(self, *args: Any, **kwargs: Any) -> Any:
        return await self._first(super().get_one, *args, **kwargs)

    async def stream(self, *args: Any, **kwargs: Any) -> Any:
        return await self._first(super().stream, *args, **kwargs)

    async def stream_scalars(self, *args: Any, **kwargs: Any) -> Any:
        return await self._first(super().stream_scalars, *args, **kwargs)

    async def refresh(self, *args: Any, **kwargs: Any) -> None:
        await self._first(super().refresh, *args, **kwargs)

    async def connection(self, *args: Any, **kwargs: Any) -> Any:
        # Statements run on the connection itself go around the session: from here on, no fallback.
        self.fallback = None
        return await super().connection(*args, **kwargs)

    async def run_sync(self, *args: Any, **kwargs: Any) -> Any:
        self.fallback = None
        return await super().run_sync(*args, **kwargs)
