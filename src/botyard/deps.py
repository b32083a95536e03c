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
DbSession = Annotated[AsyncSession, Depends(_db_session, scope="function")]
AppSettings = Annotated[Settings, Depends(_settings)]


async def _current_account(
    db: DbSession, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> str:
    header = f"{credentials.scheme} {credentials.credentials}" if credentials else None
    return await authenticate(db, header)


CurrentAccount = Annotated[str, Depends(_current_account)]
"""The uuid of the account whose API key signed the request."""
