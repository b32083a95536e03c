"""The rate limit's hits: each counted request of a device of a chatbot. SQL lives here only."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, insert, literal, select, text

from botyard.db.base import new_uuid
from botyard.db.repository import Repository
from botyard.models import RateLimitHit


class RateLimitRepository(Repository[RateLimitHit]):
    model = RateLimitHit

    async def lock_device(self, chatbot_uuid: str, device: str) -> None:
        """Serialise the device's check-and-insert until the transaction ends, across processes.

        On SQLite the write transaction (`BEGIN IMMEDIATE`) already holds the database's one write lock. On
        PostgreSQL a transaction-scoped advisory lock on the device's key does it without locking any row other
        requests need; it is released by the commit or rollback.
        """
        if self.session.get_bind().dialect.name == "postgresql":
            key = f"rate-limit:{chatbot_uuid}:{device}"
            await self.session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"), {"key": key})

    async def times_since(self, chatbot_uuid: str, device: str, since: datetime) -> list[datetime]:
        """The device's hits after `since`, oldest first."""
        rows = await self.session.execute(
            select(RateLimitHit.created_at)
            .where(
                RateLimitHit.chatbot_uuid == chatbot_uuid,
                RateLimitHit.device == device,
                RateLimitHit.created_at > since,
            )
            .order_by(RateLimitHit.created_at)
        )
        return list(rows.scalars())

    async def add_below(self, chatbot_uuid: str, device: str, at: datetime, since: datetime, limit: int) -> bool:
        """Record a hit of the device at `at` if it has fewer than `limit` hits after `since`: the count and the
        insert in one statement. Whether it was recorded."""
        recent = (
            select(func.count())
            .select_from(RateLimitHit)
            .where(
                RateLimitHit.chatbot_uuid == chatbot_uuid,
                RateLimitHit.device == device,
                RateLimitHit.created_at > since,
            )
            .scalar_subquery()
        )
        columns = RateLimitHit.__table__.c
        row = select(
            literal(new_uuid(), columns.uuid.type),
            literal(chatbot_uuid, columns.chatbot_uuid.type),
            literal(device, columns.device.type),
            literal(at, columns.created_at.type),
        ).where(recent < limit)
        statement = insert(RateLimitHit).from_select(["uuid", "chatbot_uuid", "device", "created_at"], row)
        return bool(getattr(await self.session.execute(statement), "rowcount", 0))

    async def forget_before(self, chatbot_uuid: str, device: str, before: datetime) -> None:
        await self.session.execute(
            delete(RateLimitHit).where(
                RateLimitHit.chatbot_uuid == chatbot_uuid,
                RateLimitHit.device == device,
                RateLimitHit.created_at <= before,
            )
        )

    async def count(self, chatbot_uuid: str) -> int:
        statement = select(func.count()).select_from(RateLimitHit).where(RateLimitHit.chatbot_uuid == chatbot_uuid)
        return int((await self.session.execute(statement)).scalar_one())
