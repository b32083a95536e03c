from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.exc import IntegrityError

from botyard.db.repository import Repository
from botyard.models import Role, User


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
