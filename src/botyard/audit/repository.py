"""The audit log's table, `audit_event` (its one owner: `botyard.audit`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, or_, select

from botyard.db.repository import Repository
from botyard.models import AuditEvent, AuditObject


@dataclass(frozen=True)
class AuditFilter:
    """Which events a listing or an export picks: a period (from `since`, before `before`), one actor (an email, a
    person's uuid or a key's prefix), one kind of object; None is "any"."""

    since: datetime | None = None
    before: datetime | None = None
    actor: str | None = None
    object_type: AuditObject | None = None


class AuditRepository(Repository[AuditEvent]):
    model = AuditEvent

    def _picked(self, account_uuid: str, only: AuditFilter) -> Select[Any]:
        statement = select(AuditEvent).where(AuditEvent.account_uuid == account_uuid)
        if only.since is not None:
            statement = statement.where(AuditEvent.at >= only.since)
        if only.before is not None:
            statement = statement.where(AuditEvent.at < only.before)
        if only.actor:
            actor = only.actor.strip()
            statement = statement.where(
                or_(
                    AuditEvent.actor_email == actor.lower(),
                    AuditEvent.actor_user_uuid == actor,
                    AuditEvent.actor_key_prefix == actor,
                )
            )
        if only.object_type is not None:
            statement = statement.where(AuditEvent.object_type == only.object_type.value)
        return statement

    async def newest(self, account_uuid: str, only: AuditFilter, offset: int, limit: int) -> Sequence[AuditEvent]:
        """A page of the account's events the filter picks, newest first."""
        statement = self._picked(account_uuid, only).order_by(AuditEvent.at.desc(), AuditEvent.uuid.desc())
        return await self.all(statement.offset(offset).limit(limit))

    async def after(
        self, account_uuid: str, only: AuditFilter, cursor: tuple[datetime, str] | None, limit: int
    ) -> Sequence[AuditEvent]:
        """The next `limit` events the filter picks, newest first, after `cursor` (the last one's time and uuid):
        what an export pages through, each page in a transaction of its own."""
        statement = self._picked(account_uuid, only)
        if cursor is not None:
            at, uuid = cursor
            statement = statement.where(or_(AuditEvent.at < at, (AuditEvent.at == at) & (AuditEvent.uuid < uuid)))
        return await self.all(statement.order_by(AuditEvent.at.desc(), AuditEvent.uuid.desc()).limit(limit))

    async def prune(self, before: datetime) -> int:
        """Delete every account's events older than `before`; how many."""
        result = await self.session.execute(delete(AuditEvent).where(AuditEvent.at < before))
        return int(getattr(result, "rowcount", 0) or 0)
