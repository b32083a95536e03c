"""Request dependencies as named `Annotated` aliases, so that handler signatures read like prose."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.accounts.service import authenticate
from botyard.config import Settings
from botyard.db.session import Database
from botyard.egress import EgressClient
from botyard.runtime import Runtime

_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_bearer = HTTPBearer(auto_error=False, description="An API key created with `botyard key create`.")


async def _db_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's unit of work: committed when the handler succeeds, rolled back when it raises."""
    database: Database = request.app.state.database
    async with database.transaction(write=request.method not in _READ_METHODS) as session:
        yield session


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


# scope="function": commit before the response is sent, so a client that reads right after sees its write, and a
# failed commit becomes an error response instead of a lost write behind a 200.
def _egress(request: Request) -> EgressClient:
    runtime: Runtime = request.app.state.runtime
    return runtime.egress


Egress = Annotated[EgressClient, Depends(_egress)]
"""The guarded outbound HTTP client (checks URLs at creation; fetches happen in jobs)."""

DbSession = Annotated[AsyncSession, Depends(_db_session, scope="function")]
AppSettings = Annotated[Settings, Depends(_settings)]


async def _current_account(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> str:
    # Its own short read transaction: on SQLite the request's write transaction takes the write lock at its first
    # statement, and it should not start before the handler needs it (a handler may first check a URL's DNS).
    header = f"{credentials.scheme} {credentials.credentials}" if credentials else None
    database: Database = request.app.state.database
    async with database.transaction(write=False) as session:
        return await authenticate(session, header)


CurrentAccount = Annotated[str, Depends(_current_account)]
"""The uuid of the account whose API key signed the request."""
