"""The sign-in attempt counts (`signin_attempt`). SQL lives here only; `throttle.service` is the one writer."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, or_, select
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from botyard.db.repository import Repository
from botyard.models import SigninAttempt

PRUNE_BATCH = 500


class AttemptRepository(Repository[SigninAttempt]):
    model = SigninAttempt

    async def locked(self, key: str, now: datetime) -> SigninAttempt:
        """The key's count, made (empty) if it has none, and locked until the transaction ends.

        On SQLite the brief write transaction (`BEGIN IMMEDIATE`) already holds the database's one write lock. On
        PostgreSQL the insert that does nothing on a conflict, then `SELECT ... FOR UPDATE`, make concurrent
        attempts of one key take their places one after another, across processes.
        """
        dialect = self.session.get_bind().dialect.name
        insert = postgres_insert if dialect == "postgresql" else sqlite_insert
        values = {"key": key, "failures": 0, "blocked_until": None, "window_start": now}
        statement = select(SigninAttempt).where(SigninAttempt.key == key).with_for_update()
        while True:  # twice at most: a row another transaction's `prune` deleted after the insert is made again
            await self.session.execute(insert(SigninAttempt).values(values).on_conflict_do_nothing())
            row = await self.one_or_none(statement.execution_options(populate_existing=True))
            if row is not None:
                return row

    async def prune(self, before: datetime) -> None:
        """Forget up to `PRUNE_BATCH` counts begun before `before` that block nothing any more. Rows another
        transaction holds are skipped (`SKIP LOCKED` on PostgreSQL), so pruning never waits, nor deadlocks with an
        attempt."""
        blocking = or_(SigninAttempt.blocked_until.is_(None), SigninAttempt.blocked_until <= before)
        old = (
            select(SigninAttempt.key)
            .where(SigninAttempt.window_start < before, blocking)
            .limit(PRUNE_BATCH)
            .with_for_update(skip_locked=True)
        )
        await self.session.execute(delete(SigninAttempt).where(SigninAttempt.key.in_(old)))

    async def forget(self, key: str) -> None:
        await self.session.execute(delete(SigninAttempt).where(SigninAttempt.key == key))
