"""SQLite's unit of work that waits for its turn to write only when it first speaks to the database.

SQLite has one writer at a time, and a process queues its own writers on one lock (`Database`) so that they never
poll each other. A unit of work used to take that lock, and SQLite's (`BEGIN IMMEDIATE`), the moment it opened:
before a request handler's first line, so a handler that first checked a URL (DNS may answer in seconds) held every
other write of the process meanwhile. A `WriterSession` takes both at its first statement instead (a read, a flush,
a commit with something to write), and the unit of work gives the process lock back when it ends.

Why the first statement and not the first write: a SQLite transaction that reads and then wants to write fails at
once ("database is locked", no waiting possible) when another writer committed after its first read, and then the
whole unit of work would have to run again. Holding the lock from the first statement keeps every unit of work's
reads and writes one consistent transaction, as on PostgreSQL; what may wait on the network (URL checks) comes
before it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession


class WriterSession(AsyncSession):
    """An `AsyncSession` of SQLite's write engine that takes `turns` (the process's writer lock) before its first
    statement; `release` gives it back (the unit of work does, when it ends)."""

    turns: asyncio.Lock | None = None
    holds_turn: bool = False

    async def take_turn(self) -> None:
        if self.holds_turn or self.turns is None:
            return
        await self.turns.acquire()
        self.holds_turn = True

    def release_turn(self) -> None:
        if self.holds_turn and self.turns is not None:
            self.holds_turn = False
            self.turns.release()

    # Every method that may speak to the database takes the turn first; `add` only stages (the flush speaks).
    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().execute(*args, **kwargs)

    async def scalar(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().scalar(*args, **kwargs)

    async def scalars(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().scalars(*args, **kwargs)

    async def get(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().get(*args, **kwargs)

    async def get_one(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().get_one(*args, **kwargs)

    async def stream(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().stream(*args, **kwargs)

    async def stream_scalars(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().stream_scalars(*args, **kwargs)

    async def flush(self, objects: Sequence[Any] | None = None) -> None:
        await self.take_turn()
        await super().flush(objects)

    async def refresh(self, *args: Any, **kwargs: Any) -> None:
        await self.take_turn()
        await super().refresh(*args, **kwargs)

    async def merge(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().merge(*args, **kwargs)

    async def delete(self, instance: object) -> None:
        await self.take_turn()
        await super().delete(instance)

    async def connection(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().connection(*args, **kwargs)

    async def run_sync(self, *args: Any, **kwargs: Any) -> Any:
        await self.take_turn()
        return await super().run_sync(*args, **kwargs)

    async def commit(self) -> None:
        if self.new or self.dirty or self.deleted:  # a commit with staged objects flushes them: it writes
            await self.take_turn()
        await super().commit()
