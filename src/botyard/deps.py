"""Request dependencies as named `Annotated` aliases, so that handler signatures read like prose."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.auth.service import authenticate
from botyard.client_address import client_network, trusted_networks
from botyard.config import Settings
from botyard.db.session import Database
from botyard.egress import EgressClient
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


async def _current_account(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> str:
    # Its own short read transaction: on SQLite the request's write transaction takes the write lock at its first
    # statement, and it should not start before the handler needs it (a handler may first check a URL's DNS).
    header = f"{credentials.scheme} {credentials.credentials}" if credentials else None
    database: Database = request.app.state.database
    return await database.read_briefly(lambda session: authenticate(session, header))


CurrentAccount = Annotated[str, Depends(_current_account)]
"""The uuid of the account whose API key signed the request."""


async def _optional_account(request: Request) -> str | None:
    # No header at all is "anonymous" (a widget streaming into a public chatbot's session); a header that is there
    # must be a valid key, exactly as for `CurrentAccount`.
    header = request.headers.get("authorization")
    if not header:
        return None
    database: Database = request.app.state.database
    return await database.read_briefly(lambda session: authenticate(session, header))


OptionalAccount = Annotated[str | None, Depends(_optional_account)]
"""The uuid of the account whose key signed the request, or None when no `Authorization` header was sent."""


async def _client_network(request: Request) -> str:
    settings: Settings = request.app.state.settings
    peer = request.client.host if request.client is not None else None
    trusted = trusted_networks(settings.trusted_proxies)  # a few microseconds: cheaper than keeping it in sync
    return client_network(peer, request.headers.get("x-forwarded-for"), trusted)


ClientNetwork = Annotated[str, Depends(_client_network)]
"""The caller's address (its IPv6 /64), read through the trusted proxies: what the limits on anonymous traffic count."""


def reads_key(dependant: Dependant) -> bool:
    """Whether a route (its dependency tree) reads the API key, and so answers 401 for a missing or wrong one."""
    key_readers = (_current_account, _optional_account)
    return any(dep.call in key_readers or reads_key(dep) for dep in dependant.dependencies)
