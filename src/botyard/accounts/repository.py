from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from botyard.db.repository import Repository
from botyard.models import Account, ApiKey


class AccountRepository(Repository[Account]):
    model = Account

    async def any_exists(self) -> bool:
        return await self.one_or_none(select(Account).limit(1)) is not None

    async def by_email(self, email: str) -> Account | None:
        return await self.one_or_none(select(Account).where(Account.email == email))


class ApiKeyRepository(Repository[ApiKey]):
    model = ApiKey

    async def by_hash(self, key_hash: str) -> ApiKey | None:
        return await self.one_or_none(select(ApiKey).where(ApiKey.key_hash == key_hash))

    async def by_prefix(self, prefix: str) -> ApiKey | None:
        return await self.one_or_none(select(ApiKey).where(ApiKey.prefix == prefix))

    async def of_account(self, account_uuid: str) -> Sequence[ApiKey]:
        return await self.all(
            select(ApiKey).where(ApiKey.account_uuid == account_uuid).order_by(ApiKey.created_at, ApiKey.prefix)
        )
