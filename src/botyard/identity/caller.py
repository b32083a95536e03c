"""Who is calling: the signer of a request (an API key, or a person by the dashboard's session cookie), allowed what
the route needs. Named `Annotated` aliases, so that handler signatures read like prose."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from botyard.db.session import Database
from botyard.errors import AppError, ErrorCode, unauthorized
from botyard.identity import tokens
from botyard.identity.access import access_of
from botyard.identity.browser_sessions import cookies, csrf, sessions
from botyard.identity.keys import service as api_keys
from botyard.identity.principal import Principal
from botyard.identity.roles import KEY_ROLE

_bearer = HTTPBearer(auto_error=False, description="An API key created with `botyard key create`.")


async def _signer(request: Request, authorization: str | None, *, optional: bool) -> Principal | None:
    """Who signs the request: the API key of `Authorization` if one is sent (as before people existed), else the
    dashboard's session cookie; None when neither is there. A cookie request that may change state must also pass
    the cross-site checks (`browser_sessions/csrf.py`); where the signer is `optional` a cookie that fails them, or
    has ended, counts as no signer at all (a visitor), as a missing header does."""
    database: Database = request.app.state.database
    now = request.app.state.clock()
    # Their own short transactions: on SQLite the request's write transaction takes the write lock at its first
    # statement, and it should not start before the handler needs it (a handler may first check a URL's DNS).
    if authorization:
        record = await database.read_briefly(lambda db: api_keys.signing_key(db, authorization))
        if api_keys.use_is_due(record, now):
            await database.write_briefly(lambda db: api_keys.note_use(db, record.uuid, now))
        return Principal(account_uuid=record.account_uuid, role=KEY_ROLE, name=record.name, key_prefix=record.prefix)
    token = request.cookies.get(cookies.SESSION)
    if not token:
        return None
    found = await database.read_briefly(lambda db: sessions.signed_in(db, token, now))
    try:
        if found is None:
            raise unauthorized("Your session has ended: sign in again")
        if request.method not in csrf.SAFE_METHODS:
            _check_cross_site(request, found.csrf_hash)
    except AppError:
        if optional:
            return None
        raise
    return found.principal


def _check_cross_site(request: Request, csrf_hash: str) -> None:
    csrf.check_origin(request.headers)
    sent = request.headers.get(csrf.HEADER, "")
    if not sent or not tokens.matches(sent, csrf_hash):
        raise csrf.refused(f"Cross-site request refused: send the {csrf.HEADER} header the dashboard sends")


def _authorise(request: Request, principal: Principal) -> None:
    """403 `forbidden_role` unless the signer's role has the permission the route declares (`identity/access.py`)."""
    access = access_of(request.scope.get("route"))
    needed = access.permission if access is not None else None
    if needed is None:
        if principal.user_uuid is None:
            return  # an API key passes an undeclared route, as before people existed (a test fails)
        raise AppError(ErrorCode.FORBIDDEN_ROLE, "This operation declares no permission: nobody may use it yet")
    if not principal.can(needed):
        raise AppError(ErrorCode.FORBIDDEN_ROLE, f"Your role ({principal.role}) may not do this (it needs {needed})")


async def _principal(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> Principal:
    del credentials  # declares the Bearer scheme in OpenAPI; the header itself is read as sent
    principal = await _signer(request, request.headers.get("authorization"), optional=False)
    if principal is None:
        raise unauthorized("Missing API key: send 'Authorization: Bearer <key>', or sign in to the dashboard")
    _authorise(request, principal)
    request.state.principal = principal
    return principal


CurrentPrincipal = Annotated[Principal, Depends(_principal)]
"""Who signs the request (a person by their session cookie, or an API key), allowed what the route needs."""


async def _current_account(principal: CurrentPrincipal) -> str:
    return principal.account_uuid


CurrentAccount = Annotated[str, Depends(_current_account)]
"""The uuid of the account whose API key (or signed-in person) signed the request."""


async def _optional_account(request: Request) -> str | None:
    # No header and no cookie is "anonymous" (a widget streaming into a public chatbot's session); a header that
    # is there must be a valid key, exactly as for `CurrentAccount`.
    principal = await _signer(request, request.headers.get("authorization"), optional=True)
    if principal is None:
        return None
    _authorise(request, principal)
    request.state.principal = principal
    return principal.account_uuid


OptionalAccount = Annotated[str | None, Depends(_optional_account)]
"""The uuid of the account whose key (or signed-in person) signed the request, or None when nobody did."""


def reads_key(dependant: Dependant) -> bool:
    """Whether a route (its dependency tree) reads the API key, and so answers 401 for a missing or wrong one."""
    key_readers = (_principal, _current_account, _optional_account)
    return any(dep.call in key_readers or reads_key(dep) for dep in dependant.dependencies)
