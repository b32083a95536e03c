"""Browser sign-in sessions: start one for a person (`opening` does, with its cookies), find the person a cookie
stands for, end one or all.

A session is a row keyed by the SHA-256 of the cookie's token, with an absolute expiry; the person's role is read
from their row at every request (one indexed join), so a new role or a removal counts at the next request.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.identity.browser_sessions.repository import BrowserSessionRepository
from botyard.identity.principal import Principal, of_user
from botyard.identity.tokens import hash_token, new_token
from botyard.models import User, UserSession


@dataclass(frozen=True)
class OpenedBrowserSession:
    """A new session: the two secrets exist only here and in the browser's cookies."""

    user: User
    token: str
    csrf: str
    expires_at: datetime


@dataclass(frozen=True)
class SignedIn:
    """A request's cookie, resolved: who, and the hash its cross-site header must match."""

    principal: Principal
    csrf_hash: str


async def start(db: AsyncSession, user: User, now: datetime, lifetime: timedelta) -> OpenedBrowserSession:
    repository = BrowserSessionRepository(db)
    await repository.end_expired(user.uuid, now)  # a person's old sessions go as they sign in again
    token, csrf = new_token(), new_token()
    expires_at = now + lifetime
    record = UserSession(
        user_uuid=user.uuid,
        token_hash=hash_token(token),
        csrf_hash=hash_token(csrf),
        created_at=now,
        expires_at=expires_at,
    )
    await repository.add(record)
    return OpenedBrowserSession(user=user, token=token, csrf=csrf, expires_at=expires_at)


async def signed_in(db: AsyncSession, token: str, now: datetime) -> SignedIn | None:
    """The live session of a cookie's token, or None (unknown, ended or expired)."""
    found = await BrowserSessionRepository(db).signed_in(hash_token(token), now)
    if found is None:
        return None
    record, user = found
    return SignedIn(principal=of_user(user, record.uuid), csrf_hash=record.csrf_hash)


async def end(db: AsyncSession, session_uuid: str) -> None:
    await BrowserSessionRepository(db).end(session_uuid)


async def end_all(db: AsyncSession, user_uuid: str) -> int:
    """Sign the person out of every browser at once; the number of sessions ended."""
    return await BrowserSessionRepository(db).end_all(user_uuid)
