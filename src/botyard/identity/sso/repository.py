from __future__ import annotations

from sqlalchemy import select

from botyard.db.repository import Repository
from botyard.models import OidcIdentity


class IdentityRepository(Repository[OidcIdentity]):
    model = OidcIdentity

    async def by_subject(self, issuer: str, subject: str) -> OidcIdentity | None:
        statement = select(OidcIdentity).where(OidcIdentity.issuer == issuer, OidcIdentity.subject == subject)
        return await self.one_or_none(statement)

    async def of_user(self, user_uuid: str, issuer: str) -> OidcIdentity | None:
        statement = select(OidcIdentity).where(OidcIdentity.user_uuid == user_uuid, OidcIdentity.issuer == issuer)
        return await self.one_or_none(statement)
