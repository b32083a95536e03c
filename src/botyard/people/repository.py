from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, select, update
from sqlalchemy.exc import IntegrityError

from botyard.db.repository import Repository
from botyard.models import Invitation, Role, User, UserSession


class UserRepository(Repository[User]):
    model = User
    noun = "Member"

    def owned_statement(self, account_uuid: str, uuid: str) -> Select[Any]:
        return select(User).where(User.uuid == uuid, User.account_uuid == account_uuid)

    async def by_email(self, email: str) -> User | None:
        return await self.one_or_none(select(User).where(User.email == email))

    async def add_unless_taken(self, user: User) -> bool:
        """Insert the member unless a person of the service has the email already (False then, nothing written):
        the check before it cannot see a member that another transaction is adding at the same moment."""
        try:
            async with self.session.begin_nested():
                self.session.add(user)
                await self.session.flush()
        except IntegrityError:
            return False
        return True

    async def by_reset_hash(self, reset_hash: str) -> User | None:
        return await self.one_or_none(select(User).where(User.reset_hash == reset_hash))

    async def of_account(self, account_uuid: str) -> Sequence[User]:
        return await self.all(
            select(User).where(User.account_uuid == account_uuid).order_by(User.created_at, User.email)
        )

    async def lock_owners(self, account_uuid: str) -> set[str]:
        """The uuids of the account's owners, their rows locked until the transaction ends, so that two changes of
        ownership take turns: the second reads the owners the first left. PostgreSQL locks the rows (`FOR UPDATE`,
        and a waiting transaction reads them again once the first commits); on SQLite the writer holds the
        database's write lock from its first statement already, and the clause is not rendered."""
        statement = (
            select(User.uuid)
            .where(User.account_uuid == account_uuid, User.role == Role.OWNER.value)
            .order_by(User.uuid)
            .with_for_update()
        )
        return set((await self.session.execute(statement)).scalars().all())

    async def takers(self, account_uuid: str, roles: Sequence[Role]) -> Sequence[tuple[str, bool]]:
        """The account's people of `roles`: each one's email and whether they said they are away."""
        statement = select(User.email, User.away).where(
            User.account_uuid == account_uuid, User.role.in_([role.value for role in roles])
        )
        return [(email, away) for email, away in (await self.session.execute(statement)).all()]

    async def any_of_account(self, account_uuid: str) -> bool:
        return await self.one_or_none(select(User).where(User.account_uuid == account_uuid).limit(1)) is not None


class SessionRepository(Repository[UserSession]):
    model = UserSession

    async def signed_in(self, token_hash: str, now: datetime) -> tuple[UserSession, User] | None:
        """The live session of this token and its person, in one indexed read (every cookie request makes it)."""
        statement = (
            select(UserSession, User)
            .join(User, User.uuid == UserSession.user_uuid)
            .where(UserSession.token_hash == token_hash, UserSession.expires_at > now)
        )
        row = (await self.session.execute(statement)).first()
        return None if row is None else (row[0], row[1])

    async def end(self, session_uuid: str) -> None:
        await self.session.execute(delete(UserSession).where(UserSession.uuid == session_uuid))

    async def end_all(self, user_uuid: str) -> int:
        result = await self.session.execute(delete(UserSession).where(UserSession.user_uuid == user_uuid))
        return int(getattr(result, "rowcount", 0) or 0)

    async def end_expired(self, user_uuid: str, now: datetime) -> None:
        await self.session.execute(
            delete(UserSession).where(UserSession.user_uuid == user_uuid, UserSession.expires_at <= now)
        )


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
