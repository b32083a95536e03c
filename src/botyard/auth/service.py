"""API keys: the account an `Authorization` header stands for, and the keys of an account (their table's one
owner: `accounts` issues and revokes keys through these)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.auth import keys
from botyard.auth.repository import ApiKeyRepository
from botyard.db.base import utcnow
from botyard.errors import unauthorized
from botyard.models import ApiKey


async def authenticate(db: AsyncSession, authorization: str | None) -> str:
    """The account uuid an `Authorization: Bearer <key>` header stands for, or 401."""
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
    return record.account_uuid


async def add_key(db: AsyncSession, account_uuid: str) -> tuple[str, ApiKey]:
    """A new key for the account: the plain key (shown once, never stored) and its stored record (its hash)."""
    key = keys.generate_key()
    record = await ApiKeyRepository(db).add(
        ApiKey(account_uuid=account_uuid, prefix=keys.display_prefix(key), key_hash=keys.hash_key(key))
    )
    return key, record


async def keys_of(db: AsyncSession, account_uuid: str) -> Sequence[ApiKey]:
    return await ApiKeyRepository(db).of_account(account_uuid)


async def key_by_prefix(db: AsyncSession, prefix: str) -> ApiKey | None:
    return await ApiKeyRepository(db).by_prefix(prefix)


async def revoke(db: AsyncSession, record: ApiKey) -> ApiKey:
    """Revoke the key (at once: the next request with it is refused); a revoked key stays revoked as it was."""
    if record.revoked_at is None:
        record.revoked_at = utcnow()
        await db.flush()
    return record
