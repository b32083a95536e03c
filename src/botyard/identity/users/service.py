"""What the members routes do across the people and their keys: a removal that can take the keys the person made
with it, and the key listing that names each key's maker."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.identity.keys import service as api_keys
from botyard.identity.principal import Principal
from botyard.identity.users import members
from botyard.models import ApiKey


async def remove(db: AsyncSession, actor: Principal, user_uuid: str, *, revoke_keys: bool) -> list[str]:
    """Remove the member; with `revoke_keys`, revoke the account's live keys they made too, in the same
    transaction (a program using one is refused from its next request): the prefixes revoked."""
    user = await members.remove(db, actor, user_uuid)
    if not revoke_keys:
        return []
    return [record.prefix for record in await api_keys.revoke_made_by(db, actor.account_uuid, user.uuid)]


async def keys_with_makers(db: AsyncSession, account_uuid: str) -> tuple[Sequence[ApiKey], dict[str, str]]:
    """The account's keys, and the email of each of its members by uuid (who made which key)."""
    emails = {user.uuid: user.email for user in await members.members(db, account_uuid)}
    return await api_keys.keys_of(db, account_uuid), emails
