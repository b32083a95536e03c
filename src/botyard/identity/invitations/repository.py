from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, select, update

from botyard.db.repository import Repository
from botyard.models import Invitation


class InvitationRepository(Repository[Invitation]):
    model = Invitation
    noun = "Invitation"

    def owned_statement(self, account_uuid: str, uuid: str) -> Select[Any]:
        return select(Invitation).where(Invitation.uuid == uuid, Invitation.account_uuid == account_uuid)

    async def by_token_hash(self, token_hash: str) -> Invitation | None:
        return await self.one_or_none(select(Invitation).where(Invitation.token_hash == token_hash))

    async def claim(self, uuid: str, now: datetime) -> bool:
        """Mark the invitation accepted at `now` if it is still open: whether this call did. Of several claims at
        once one wins: on PostgreSQL the others wait for its commit on the row, then find it accepted; on SQLite
        writers take turns already."""
        statement = (
            update(Invitation)
            .where(Invitation.uuid == uuid, Invitation.accepted_at.is_(None), Invitation.expires_at > now)
            .values(accepted_at=now)
            .execution_options(synchronize_session="fetch")
        )
        result = await self.session.execute(statement)
        return int(getattr(result, "rowcount", 0) or 0) == 1

    async def pending(self, account_uuid: str, now: datetime) -> Sequence[Invitation]:
        statement = (
            select(Invitation)
            .where(
                Invitation.account_uuid == account_uuid,
                Invitation.accepted_at.is_(None),
                Invitation.expires_at > now,
            )
            .order_by(Invitation.created_at, Invitation.email)
        )
        return await self.all(statement)

    async def open_for_email(self, email: str, now: datetime) -> Sequence[Invitation]:
        statement = select(Invitation).where(
            Invitation.email == email, Invitation.accepted_at.is_(None), Invitation.expires_at > now
        )
        return await self.all(statement.order_by(Invitation.created_at))

    async def withdraw_for(self, account_uuid: str, email: str) -> None:
        """Delete the account's open invitations of this email (a new one replaces them)."""
        await self.session.execute(
            delete(Invitation).where(
                Invitation.account_uuid == account_uuid, Invitation.email == email, Invitation.accepted_at.is_(None)
            )
        )
