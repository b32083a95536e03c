"""The account's own API keys (extension: the hosted API leaves key management out)."""

from __future__ import annotations

from fastapi import APIRouter

from botyard.accounts import service, setup
from botyard.accounts.schemas import ApiKeyCreated, ApiKeyInfo, FirstAccount, SetupClaim
from botyard.auth import service as api_keys
from botyard.db.base import iso
from botyard.deps import AppSettings, CurrentAccount, DbSession
from botyard.models import ApiKey

router = APIRouter(tags=["account"])

_SETUP_REFUSALS: dict[int | str, dict[str, str]] = {
    403: {"description": "`setup_refused`: wrong or used setup token."},
    409: {"description": "`setup_done`: the service has an account already."},
}


def _info(record: ApiKey) -> ApiKeyInfo:
    return {
        "prefix": record.prefix,
        "created_at": iso(record.created_at),
        "revoked_at": iso(record.revoked_at) if record.revoked_at else None,
    }


@router.get("/account/keys", response_model=list[ApiKeyInfo])
async def list_keys(db: DbSession, account: CurrentAccount) -> list[ApiKeyInfo]:
    """List the account's API keys by prefix (the keys themselves are never shown again)."""
    return [_info(record) for record in await api_keys.keys_of(db, account)]


@router.post("/account/key/create", response_model=ApiKeyCreated)
async def create_key(db: DbSession, account: CurrentAccount) -> ApiKeyCreated:
    """Create another API key for the account; the response is the only time the key is shown."""
    key, record = await api_keys.add_key(db, account)
    return {**_info(record), "key": key}


@router.post("/account/key/{prefix}/revoke", response_model=ApiKeyInfo)
async def revoke_key(prefix: str, db: DbSession, account: CurrentAccount) -> ApiKeyInfo:
    """Revoke one of the account's keys by its prefix (a key may revoke itself)."""
    return _info(await service.revoke_key(db, prefix, account_uuid=account))


@router.post("/setup", response_model=FirstAccount, responses=_SETUP_REFUSALS)
async def first_account(body: SetupClaim, db: DbSession, settings: AppSettings) -> FirstAccount:
    """Create the first account and its key with the one-time token of the setup link `botyard serve` prints while
    no account exists (no key needed). 409 `setup_done` once any account exists; 403 `setup_refused` for a wrong
    token."""
    issued = await setup.claim(db, settings, body.token, body.email)
    return {**_info(issued.record), "key": issued.key, "email": issued.account.email}
