"""First run without a terminal: the one-time token of the setup link makes the first account and its key (and, with
a password, its owner, signed in). The rules are `identity/accounts/setup.py`."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from botyard.db.base import iso
from botyard.deps import AppClock, AppSettings, DbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity import passwords
from botyard.identity.access import public
from botyard.identity.accounts import setup
from botyard.identity.browser_sessions import csrf
from botyard.identity.browser_sessions.opening import open_browser_session
from botyard.identity.http.setup_schemas import FirstAccount, SetupClaim
from botyard.identity.users import members
from botyard.models import Role

router = APIRouter(tags=["account"])

_SETUP_REFUSALS = error_responses(
    {
        ErrorCode.SETUP_REFUSED: "wrong or used setup token",
        ErrorCode.CSRF_REFUSED: "sent from another site.",
        ErrorCode.SETUP_DONE: "the service has an account already.",
    }
)


@router.post("/setup", response_model=FirstAccount, responses=_SETUP_REFUSALS, dependencies=[public()])
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
    record = issued.record
    revoked_at = iso(record.revoked_at) if record.revoked_at else None
    return {
        "prefix": record.prefix,
        "created_at": iso(record.created_at),
        "revoked_at": revoked_at,
        "key": issued.key,
        "email": issued.account.email,
    }
