"""Accounts and their keys: issue, list, revoke (authentication itself is `auth`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.accounts.repository import AccountRepository
from botyard.auth import keys
from botyard.auth.repository import ApiKeyRepository
from botyard.db.base import utcnow
from botyard.errors import AppError, ErrorCode
from botyard.models import Account, ApiKey


@dataclass(frozen=True)
class IssuedKey:
    account: Account
    key: str
    record: ApiKey


def normalise_email(email: str) -> str:
    email = email.strip().lower()
    if "@" not in email or email.startswith("@") or email.endswith("@") or len(email) > 320:
        raise AppError(ErrorCode.VALIDATION_ERROR, f"Not an email address: {email!r}")
    return email


async def get_or_create_account(db: AsyncSession, email: str) -> Account:
    repo = AccountRepository(db)
    email = normalise_email(email)
    account = await repo.by_email(email)
    return account or await repo.add(Account(email=email))


async def issue_key(db: AsyncSession, email: str) -> IssuedKey:
    """Create the account if needed and a new key for it; the plain key exists only in the returned object."""
    account = await get_or_create_account(db, email)
    key, record = await add_key(db, account.uuid)
    return IssuedKey(account=account, key=key, record=record)


async def add_key(db: AsyncSession, account_uuid: str) -> tuple[str, ApiKey]:
    key = keys.generate_key()
    record = await ApiKeyRepository(db).add(
        ApiKey(account_uuid=account_uuid, prefix=keys.display_prefix(key), key_hash=keys.hash_key(key))
    )
    return key, record


async def keys_of(db: AsyncSession, account_uuid: str) -> Sequence[ApiKey]:
    return await ApiKeyRepository(db).of_account(account_uuid)


async def list_keys(db: AsyncSession, email: str) -> Sequence[ApiKey]:
    account = await AccountRepository(db).by_email(normalise_email(email))
    if account is None:
        raise AppError(ErrorCode.NOT_FOUND, f"No account for {email}")
    return await ApiKeyRepository(db).of_account(account.uuid)


async def revoke_key(db: AsyncSession, prefix: str, *, account_uuid: str | None = None) -> ApiKey:
    """Revoke a key by prefix; with `account_uuid`, only one of that account's keys (others answer 404)."""
    record = await ApiKeyRepository(db).by_prefix(prefix)
    if record is None or (account_uuid is not None and record.account_uuid != account_uuid):
        raise AppError(ErrorCode.NOT_FOUND, f"No key with prefix {prefix}")
    if record.revoked_at is None:
        record.revoked_at = utcnow()
        await db.flush()
    return record
