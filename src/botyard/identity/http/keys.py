"""The account's own API keys (extension: the hosted API leaves key management out)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from botyard.db.base import iso
from botyard.deps import AppClock, AppSettings, DbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity import passwords
from botyard.identity.accounts import service, setup
from botyard.identity.browser_sessions import csrf
from botyard.identity.browser_sessions.opening import open_browser_session
from botyard.identity.caller import CurrentAccount, CurrentPrincipal
from botyard.identity.http.key_schemas import ApiKeyCreated, ApiKeyInfo, FirstAccount, SetupClaim
from botyard.identity.keys import service as api_keys
from botyard.identity.users import members
from botyard.models import ApiKey, Role

router = APIRouter(tags=["account"])

_SETUP_REFUSALS = error_responses(
    {
        ErrorCode.SETUP_REFUSED: "wrong or used setup token",
        ErrorCode.CSRF_REFUSED: "sent from another site.",
        ErrorCode.SETUP_DONE: "the service has an account already.",
    }
)


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
async def create_key(db: DbSession, principal: CurrentPrincipal) -> ApiKeyCreated:
    """Create another API key for the account; the response is the only time the key is shown."""
    key, record = await api_keys.add_key(db, principal.account_uuid, made_by=principal.user_uuid)
    return {**_info(record), "key": key}


@router.post("/account/key/{prefix}/revoke", response_model=ApiKeyInfo)
async def revoke_key(prefix: str, db: DbSession, account: CurrentAccount) -> ApiKeyInfo:
    """Revoke one of the account's keys by its prefix (a key may revoke itself)."""
    return _info(await service.revoke_key(db, prefix, account_uuid=account))


@router.post("/setup", response_model=FirstAccount, responses=_SETUP_REFUSALS)
async def first_account(
    body: SetupClaim, request: Request, response: Response, db: DbSession, settings: AppSettings, now: AppClock
) -> FirstAccount:
    """Create the first account and its key with the one-time token of the setup link `botyard serve` prints while
    no account exists (no key needed). With a `password` (10 characters or more) the email becomes the account's
    owner, a person who signs in to the dashboard, and this reply signs them in (session cookies). 409 `setup_done`
    once any account exists; 403 `setup_refused` for a wrong token (or a request from another site's page)."""
    csrf.check_origin(request.headers)
    password_hash = await passwords.hash_password(body.password) if body.password is not None else None
    issued = await setup.claim(db, settings, body.token, body.email)
    if password_hash is not None:
        moment = now()
        owner = await members.add(
            db,
            issued.account.uuid,
            email=body.email,
            name=body.name,
            password_hash=password_hash,
            role=Role.OWNER,
            now=moment,
        )
        await open_browser_session(db, owner, request, response, moment)
    return {**_info(issued.record), "key": issued.key, "email": issued.account.email}
