from __future__ import annotations

from sqlalchemy import select

from botyard.db.repository import Repository
from botyard.models import Account


class AccountRepository(Repository[Account]):
    model = Account

    async def any_exists(self) -> bool:
        return await self.one_or_none(select(Account).limit(1)) is not None

    async def first(self) -> Account | None:
        return await self.one_or_none(select(Account).order_by(Account.created_at, Account.uuid).limit(1))

    async def by_email(self, email: str) -> Account | None:
        return await self.one_or_none(select(Account).where(Account.email == email))
