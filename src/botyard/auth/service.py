"""Authentication: the account an `Authorization` header stands for."""

from __future__ import annotations

import secrets

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.auth import keys
from botyard.auth.repository import ApiKeyRepository
from botyard.errors import unauthorized


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
