"""Record an event of the audit log, list and export an account's events, and keep them only `BOTYARD_AUDIT_DAYS`.

An event keeps who acted as they were then (a person's uuid, email and name, or an API key's prefix and name: never
the key), their role, what they did to which object, a short summary, the client's address (through the trusted
proxies) and its user agent. Nothing of a request's body is kept: passwords, keys and tokens never reach the log.

Pruning rides on writing: a process deletes the events past the period at most once an hour (`PRUNE_EVERY`), in
the transaction that writes an event. The log only grows by writes, so it stays within the period plus an hour.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.audit.export import CSV_HEADER, ExportFormat, csv_row, json_item
from botyard.audit.repository import AuditFilter, AuditRepository
from botyard.audit.schemas import AuditEventOut, AuditPage, event_view
from botyard.db.session import Database
from botyard.identity.principal import Principal
from botyard.identity.recording import Change
from botyard.models import AuditEvent

PRUNE_EVERY = timedelta(hours=1)
EXPORT_PAGE = 500
USER_AGENT_CHARS = 200
SUMMARY_CHARS = 300


@dataclass(frozen=True)
class Origin:
    """Where a request came from: the client's address and its user agent (truncated)."""

    address: str
    user_agent: str


def event_of(principal: Principal, change: Change, origin: Origin, at: datetime) -> AuditEvent:
    """The event of `principal` doing `change`, as the log keeps it."""
    return AuditEvent(
        account_uuid=principal.account_uuid,
        at=at,
        actor_user_uuid=principal.user_uuid,
        actor_email=principal.email,
        actor_key_prefix=principal.key_prefix,
        actor_name=principal.name[:200],
        role=principal.role.value,
        action=change.action.value,
        object_type=change.object_type.value,
        object_uuid=change.object_uuid[:64],
        summary=change.summary[:SUMMARY_CHARS],
        address=origin.address[:64],
        user_agent=origin.user_agent[:USER_AGENT_CHARS],
    )


class AuditLog:
    """A process's writer of the audit log: it remembers when it last pruned, so that it prunes once an hour."""

    def __init__(self, days: int) -> None:
        self.keep = timedelta(days=days)
        self.pruned_at: datetime | None = None

    def _prune_due(self, now: datetime) -> bool:
        if self.pruned_at is not None and timedelta(0) <= now - self.pruned_at < PRUNE_EVERY:
            return False
        self.pruned_at = now
        return True

    async def add(self, db: AsyncSession, event: AuditEvent) -> None:
        """Write the event in the caller's transaction (with the change it records), pruning when it is due."""
        repository = AuditRepository(db)
        await repository.add(event)
        if self._prune_due(event.at):
            await repository.prune(event.at - self.keep)

    async def record(self, database: Database, event: AuditEvent) -> None:
        """Write the event in a brief transaction of its own (right after the change it records)."""
        await database.write_briefly(lambda db: self.add(db, event))


async def page(db: AsyncSession, account_uuid: str, only: AuditFilter, offset: int, limit: int) -> AuditPage:
    """A page of the account's events, newest first; `more` says whether another page follows."""
    found = await AuditRepository(db).newest(account_uuid, only, offset, limit + 1)
    events: list[AuditEventOut] = [event_view(event) for event in found[:limit]]
    return {"events": events, "offset": offset, "limit": limit, "more": len(found) > limit}


async def export(database: Database, account_uuid: str, only: AuditFilter, form: ExportFormat) -> AsyncIterator[str]:
    """The account's events the filter picks, newest first, as CSV (a header, a row each) or a JSON array; read a
    page at a time, each in a read transaction of its own."""
    render: Callable[[AuditEventOut], str] = csv_row if form == ExportFormat.CSV else json_item
    yield CSV_HEADER if form == ExportFormat.CSV else "["
    cursor: tuple[datetime, str] | None = None
    first = True
    while True:
        async with database.transaction(write=False) as db:
            found = await AuditRepository(db).after(account_uuid, only, cursor, EXPORT_PAGE)
        for event in found:
            text = render(event_view(event))
            yield text if form == ExportFormat.CSV else ("\n" if first else ",\n") + text
            first = False
        if len(found) < EXPORT_PAGE:
            break
        cursor = (found[-1].at, found[-1].uuid)
    if form == ExportFormat.JSON:
        yield "]\n" if first else "\n]\n"
