"""Request dependencies as named `Annotated` aliases, so that handler signatures read like prose."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import iter_route_contexts
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.auth import service as api_keys
from botyard.client_address import client_network, trusted_networks
from botyard.config import Settings
from botyard.db.session import Database
from botyard.egress import EgressClient
from botyard.errors import AppError, ErrorCode, unauthorized
from botyard.people import cookies, csrf, sessions, tokens
from botyard.people import routes as permissions
from botyard.people.principal import Principal
from botyard.people.roles import KEY_ROLE
from botyard.retrieval.retriever import Retriever

# The dependencies below are `async def` though none of them waits for anything: FastAPI runs a plain `def`
# dependency in a worker thread, a thread hop per dependency per request (four on every chat message).
_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_bearer = HTTPBearer(auto_error=False, description="An API key created with `botyard key create`.")


async def _db_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's unit of work: committed when the handler succeeds, rolled back when it raises."""
    database: Database = request.app.state.database
    async with database.transaction(write=request.method not in _READ_METHODS) as session:
        yield session


async def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


# scope="function": commit before the response is sent, so a client that reads right after sees its write, and a
# failed commit becomes an error response instead of a lost write behind a 200.
async def _egress(request: Request) -> EgressClient:
    egress: EgressClient = request.app.state.egress
    return egress


async def _database(request: Request) -> Database:
    database: Database = request.app.state.database
    return database


async def _clock(request: Request) -> Callable[[], datetime]:
    clock: Callable[[], datetime] = request.app.state.clock
    return clock


Egress = Annotated[EgressClient, Depends(_egress)]
"""The guarded outbound HTTP client (checks URLs at creation; fetches happen in jobs)."""

DbSession = Annotated[AsyncSession, Depends(_db_session, scope="function")]


async def _read_session(request: Request) -> AsyncIterator[AsyncSession]:
    database: Database = request.app.state.database
    async with database.transaction(write=False) as session:
        yield session


ReadDbSession = Annotated[AsyncSession, Depends(_read_session, scope="function")]
"""A read-only unit of work for a POST that writes nothing (a search): on SQLite it takes no write lock."""


async def _retriever(request: Request) -> Retriever:
    retriever: Retriever = request.app.state.retriever
    return retriever


AppRetriever = Annotated[Retriever, Depends(_retriever)]
"""The process's retriever (per-chatbot search indexes, cached)."""
AppSettings = Annotated[Settings, Depends(_settings)]
AppDatabase = Annotated[Database, Depends(_database)]
"""The process's database, for handlers that open their own transactions (streams)."""
AppClock = Annotated[Callable[[], datetime], Depends(_clock)]
"""Now, for what counts time windows (rate limits)."""


async def _signer(request: Request, authorization: str | None, *, optional: bool) -> Principal | None:
    """Who signs the request: the API key of `Authorization` if one is sent (as before people existed), else the
    dashboard's session cookie; None when neither is there. A cookie request that may change state must also pass
    the cross-site checks (`people/csrf.py`); where the signer is `optional` a cookie that fails them, or has ended,
    counts as no signer at all (a visitor), as a missing header does."""
    database: Database = request.app.state.database
    now = request.app.state.clock()
    # Their own short transactions: on SQLite the request's write transaction takes the write lock at its first
    # statement, and it should not start before the handler needs it (a handler may first check a URL's DNS).
    if authorization:
        record = await database.read_briefly(lambda session: api_keys.signing_key(session, authorization))
        if api_keys.use_is_due(record, now):
            await database.write_briefly(lambda session: api_keys.note_use(session, record.uuid, now))
        return Principal(account_uuid=record.account_uuid, role=KEY_ROLE, name=record.name, key_prefix=record.prefix)
    token = request.cookies.get(cookies.SESSION)
    if not token:
        return None
    found = await database.read_briefly(lambda session: sessions.signed_in(session, token, now))
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


def route_template(request: Request) -> str:
    """The template of the route that took the request, as served (`/api/v1/chatbot/{uuid}`). The router hands on the
    route as its router declared it (`/chatbot/{uuid}`); the prefixes come from the app's routes, read once."""
    templates: dict[int, str] | None = getattr(request.app.state, "route_templates", None)
    if templates is None:
        contexts = iter_route_contexts(request.app.routes)
        templates = {id(context.original_route): context.path_format or "" for context in contexts}
        request.app.state.route_templates = templates
    return templates.get(id(request.scope.get("route")), "")


def _authorise(request: Request, principal: Principal) -> None:
    """403 `forbidden_role` unless the signer's role has the permission the route needs (`people/routes.py`)."""
    needed = permissions.permission_for(request.method, route_template(request))
    if needed is None:
        if principal.user_uuid is None:
            return  # an API key passes an undeclared route, as before people existed (the table's test fails)
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


async def _client_network(request: Request) -> str:
    settings: Settings = request.app.state.settings
    peer = request.client.host if request.client is not None else None
    trusted = trusted_networks(settings.trusted_proxies)  # a few microseconds: cheaper than keeping it in sync
    return client_network(peer, request.headers.get("x-forwarded-for"), trusted)


ClientNetwork = Annotated[str, Depends(_client_network)]
"""The caller's address (its IPv6 /64), read through the trusted proxies: what the limits on anonymous traffic count."""


def reads_key(dependant: Dependant) -> bool:
    """Whether a route (its dependency tree) reads the API key, and so answers 401 for a missing or wrong one."""
    key_readers = (_principal, _current_account, _optional_account)
    return any(dep.call in key_readers or reads_key(dep) for dep in dependant.dependencies)
