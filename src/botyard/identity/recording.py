"""The events a route of identity writes itself: a sign-in (or a failed one), and the links that open a session.

Every other change reaches the audit log through its route's declaration, which the audit recorder reads after the
reply. Sign-in is different: before it nobody signs the request, and a failed attempt is recorded though it answers
4xx. The audit log sits above identity (it reads the signer, `Principal`), so these routes write through the writer
the app was built with (`app.state.audit_note`: `botyard.audit.recorder.note`), by this module's `AuditNote`
protocol, without importing the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request

from botyard.identity.principal import Principal
from botyard.models.audit_kinds import AuditAction, AuditObject


@dataclass(frozen=True)
class Change:
    """What was done: the action, the kind of object, its id (may be empty) and a short summary."""

    action: AuditAction
    object_type: AuditObject
    object_uuid: str = ""
    summary: str = ""


class AuditNote(Protocol):
    async def __call__(
        self, request: Request, principal: Principal, change: Change, db: AsyncSession | None = None, *, proven: bool
    ) -> None:
        """Record `change` by `principal`: in the transaction `db` with the change, or else in a brief one of its
        own. Not `proven`: the actor only claimed to be the person (a wrong password), so no role is recorded."""


async def note(
    request: Request, principal: Principal, change: Change, db: AsyncSession | None = None, *, proven: bool = True
) -> None:
    """Record an event a route writes itself, through the app's audit log (see the module's docstring)."""
    writer: AuditNote = request.app.state.audit_note
    await writer(request, principal, change, db, proven=proven)
