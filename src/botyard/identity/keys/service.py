"""API keys: the account an `Authorization` header stands for, and the keys of an account (their table's one
owner: `accounts` issues and revokes keys through these)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import utcnow
from botyard.errors import unauthorized
from botyard.identity.keys import key_format as keys
from botyard.identity.keys.repository import ApiKeyRepository
from botyard.models import ApiKey

USE_PRECISION = timedelta(minutes=1)
"""`last_used_at` is written at most once a minute per key: a listing shows the minute, and a busy program's
requests stay reads."""


async def authenticate(db: AsyncSession, authorization: str | None) -> str:
    """The account uuid an `Authorization: Bearer <key>` header stands for, or 401."""
    return (await signing_key(db, authorization)).account_uuid


async def signing_key(db: AsyncSession, authorization: str | None) -> ApiKey:
    """The live key an `Authorization: Bearer <key>` header carries, or 401."""
    if not authorization:
        raise unauthorized("Missing API key: send 'Authorization: Bearer <key>'")
    scheme, _, key = authorization.strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not keys.is_well_formed(key):
        raise unauthorized("Malformed API key")
    key_hash = keys.hash_key(key)
    record = await ApiKeyRepository(db).by_hash(key_hash)
    if record is None or not secrets.compare_digest(record.key_hash, key_hash) or record.revoked_at is not None:
        raise unauthorized("Invalid or revoked API key")
    return record


def use_is_due(record: ApiKey, now: datetime) -> bool:
    return record.last_used_at is None or now - record.last_used_at >= USE_PRECISION


async def note_use(db: AsyncSession, key_uuid: str, now: datetime) -> None:
    """Record that the key was used now, unless another request (of any process) did within the minute."""
    await ApiKeyRepository(db).touch(key_uuid, now, not_since=now - USE_PRECISION)


async def add_key(
    db: AsyncSession, account_uuid: str, name: str = "", *, made_by: str | None = None
) -> tuple[str, ApiKey]:
    """A new key for the account: the plain key (shown once, never stored) and its stored record (its hash).
    `made_by`: the person who made it (None: the command line, the setup page or another key)."""
    key = keys.generate_key()
    record = ApiKey(
        account_uuid=account_uuid,
        prefix=keys.display_prefix(key),
        key_hash=keys.hash_key(key),
        name=name,
        made_by_user_uuid=made_by,
    )
    return key, await ApiKeyRepository(db).add(record)


async def keys_of(db: AsyncSession, account_uuid: str) -> Sequence[ApiKey]:
    return await ApiKeyRepository(db).of_account(account_uuid)


async def key_by_prefix(db: AsyncSession, prefix: str) -> ApiKey | None:
    return await ApiKeyRepository(db).by_prefix(prefix)


async def revoke_made_by(db: AsyncSession, account_uuid: str, user_uuid: str) -> Sequence[ApiKey]:
    """Revoke every live key of the account that this person made (a removed member's): the keys revoked."""
    made = await ApiKeyRepository(db).live_made_by(account_uuid, user_uuid)
    for record in made:
        await revoke(db, record)
    return made


async def revoke(db: AsyncSession, record: ApiKey) -> ApiKey:
    """Revoke the key (at once: the next request with it is refused); a revoked key stays revoked as it was."""
    if record.revoked_at is None:
        record.revoked_at = utcnow()
        await db.flush()
    return record
