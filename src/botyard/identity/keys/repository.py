from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import or_, select, update

from botyard.db.repository import Repository
from botyard.models import ApiKey


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

    async def live_made_by(self, account_uuid: str, user_uuid: str) -> Sequence[ApiKey]:
        """The account's keys not revoked that this person made."""
        statement = select(ApiKey).where(
            ApiKey.account_uuid == account_uuid, ApiKey.made_by_user_uuid == user_uuid, ApiKey.revoked_at.is_(None)
        )
        return await self.all(statement.order_by(ApiKey.created_at, ApiKey.prefix))

    async def touch(self, uuid: str, now: datetime, *, not_since: datetime) -> None:
        statement = (
            update(ApiKey)
            .where(ApiKey.uuid == uuid, or_(ApiKey.last_used_at.is_(None), ApiKey.last_used_at < not_since))
            .values(last_used_at=now)
        )
        await self.session.execute(statement)
