"""Accounts and their keys: issue, list, revoke (authentication itself is `auth`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.errors import AppError, ErrorCode
from botyard.identity.accounts.repository import AccountRepository
from botyard.identity.emails import normalise_email
from botyard.identity.keys import service as api_keys
from botyard.models import Account, ApiKey

__all__ = [
    "IssuedKey",
    "get_or_create_account",
    "instance_account_uuid",
    "issue_key",
    "list_keys",
    "normalise_email",
    "revoke_key",
]


@dataclass(frozen=True)
class IssuedKey:
    account: Account
    key: str
    record: ApiKey


async def get_or_create_account(db: AsyncSession, email: str) -> Account:
    repo = AccountRepository(db)
    email = normalise_email(email)
    account = await repo.by_email(email)
    return account or await repo.add(Account(email=email))


async def instance_account_uuid(db: AsyncSession) -> str | None:
    """The instance's own account: the first one made (by the setup page or the CLI), whose owner and admins run
    the instance and change its settings (`service_settings`). None before any account exists."""
    first = await AccountRepository(db).first()
    return first.uuid if first is not None else None


async def email_of(db: AsyncSession, account_uuid: str) -> str | None:
    """The account's email (None: no such account)."""
    account = await AccountRepository(db).get(account_uuid)
    return None if account is None else account.email


async def issue_key(db: AsyncSession, email: str) -> IssuedKey:
    """Create the account if needed and a new key for it; the plain key exists only in the returned object."""
    account = await get_or_create_account(db, email)
    key, record = await api_keys.add_key(db, account.uuid)
    return IssuedKey(account=account, key=key, record=record)


async def list_keys(db: AsyncSession, email: str) -> Sequence[ApiKey]:
    account = await AccountRepository(db).by_email(normalise_email(email))
    if account is None:
        raise AppError(ErrorCode.NOT_FOUND, f"No account for {email}")
    return await api_keys.keys_of(db, account.uuid)


async def revoke_key(db: AsyncSession, prefix: str, *, account_uuid: str | None = None) -> ApiKey:
    """Revoke a key by prefix; with `account_uuid`, only one of that account's keys (others answer 404)."""
    record = await api_keys.key_by_prefix(db, prefix)
    if record is None or (account_uuid is not None and record.account_uuid != account_uuid):
        raise AppError(ErrorCode.NOT_FOUND, f"No key with prefix {prefix}")
    return await api_keys.revoke(db, record)
