"""Password reset by a one-time link (`/dashboard#reset=<token>`): an owner or admin makes one for a member from the
dashboard, or whoever runs the service prints one with `botyard user reset-link --email ...`. A person has at most
one link at a time (a new one replaces the old); it works once and for `LIFETIME`, and using it ends every session
of that person and lifts a sign-in wait."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.errors import not_found
from botyard.identity.browser_sessions.repository import BrowserSessionRepository
from botyard.identity.invitations.service import link_invalid
from botyard.identity.principal import Principal
from botyard.identity.roles import Permission
from botyard.identity.signin.throttle.service import forget_address
from botyard.identity.tokens import hash_token, new_token
from botyard.identity.users import members
from botyard.identity.users.repository import UserRepository
from botyard.models import Role, User

LIFETIME = timedelta(hours=1)


async def issue(db: AsyncSession, user: User, now: datetime) -> str:
    """A new reset link's token for the person (the plain token exists only in the returned string)."""
    token = new_token()
    user.reset_hash = hash_token(token)
    user.reset_expires_at = now + LIFETIME
    await db.flush()
    return token


async def issue_for_member(db: AsyncSession, actor: Principal, user_uuid: str, now: datetime) -> tuple[User, str]:
    user = await members.member(db, actor.account_uuid, user_uuid)
    if user.role == Role.OWNER and not actor.can(Permission.OWNERSHIP):
        raise members.forbidden("Only an owner can make a reset link for an owner")
    return user, await issue(db, user, now)


async def issue_for_email(db: AsyncSession, email: str, now: datetime) -> tuple[User, str]:
    user = await members.by_email(db, email)
    if user is None:
        raise not_found("Member")
    return user, await issue(db, user, now)


async def reset(db: AsyncSession, token: str, *, password_hash: str, now: datetime) -> User:
    """Set the person's new password; the link is used up and every session of theirs ends."""
    user = await UserRepository(db).by_reset_hash(hash_token(token))
    if user is None or user.reset_expires_at is None or user.reset_expires_at <= now:
        raise link_invalid("reset")
    user.password_hash = password_hash
    user.reset_hash = None
    user.reset_expires_at = None
    await forget_address(db, user.email)
    await BrowserSessionRepository(db).end_all(user.uuid)
    await db.flush()
    return user
