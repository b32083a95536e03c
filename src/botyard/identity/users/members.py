"""The members of an account: list them, change a role, remove one, and the rules that guard ownership.

- Only an owner grants the owner role, or changes or removes an owner (`ownership`); an admin who tries gets 403
  `forbidden_role`.
- An account keeps at least one owner: the last one can be neither demoted nor removed (409 `last_owner`), not
  even by themselves.
- A member of another account answers 404, like a missing one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.errors import AppError, ErrorCode
from botyard.identity.browser_sessions.repository import BrowserSessionRepository
from botyard.identity.emails import normalise_email
from botyard.identity.principal import Principal
from botyard.identity.roles import Permission
from botyard.identity.users.repository import UserRepository
from botyard.models import Role, User

NO_PASSWORD = "!"  # noqa: S105 - a marker no password hashes to, not a password
"""The `password_hash` of a member who joined by single sign-on: no password matches it (argon2 cannot read it, so
verification fails), until a reset link sets one."""


def forbidden(message: str) -> AppError:
    return AppError(ErrorCode.FORBIDDEN_ROLE, message)


def check_may_grant(actor: Principal, role: Role) -> None:
    if role is Role.OWNER and not actor.can(Permission.OWNERSHIP):
        raise forbidden("Only an owner can make someone an owner")


async def members(db: AsyncSession, account_uuid: str) -> Sequence[User]:
    return await UserRepository(db).of_account(account_uuid)


async def member(db: AsyncSession, account_uuid: str, user_uuid: str) -> User:
    return await UserRepository(db).get_owned(account_uuid, user_uuid)


async def by_uuid(db: AsyncSession, user_uuid: str) -> User | None:
    """The member with this uuid, of any account (a sign-in that found them by a link of their own)."""
    return await UserRepository(db).get(user_uuid)


async def _guarded(db: AsyncSession, actor: Principal, user_uuid: str, *, keeps_ownership: bool) -> User:
    """The member an admin or owner acts on, with the ownership rules checked against the account's owners as they
    are now: their rows are locked first (`lock_owners`), so that two owners demoting or removing each other at once
    take turns, and the second finds the first's change (on PostgreSQL a count read before the other's commit left
    the account without an owner). `keeps_ownership`: the member stays an owner if they are one."""
    user = await member(db, actor.account_uuid, user_uuid)
    owners = await UserRepository(db).lock_owners(actor.account_uuid)
    if user.uuid not in owners:
        return user
    if not actor.can(Permission.OWNERSHIP):
        raise forbidden("Only an owner can change or remove an owner")
    if not keeps_ownership and len(owners) <= 1:
        raise AppError(ErrorCode.LAST_OWNER, "The account's last owner cannot leave: make someone else owner first")
    if actor.user_uuid is not None and actor.user_uuid not in owners:
        raise forbidden("You are not an owner any more (another owner changed your role): reload the page")
    return user


async def change_role(db: AsyncSession, actor: Principal, user_uuid: str, role: Role) -> User:
    check_may_grant(actor, role)
    user = await _guarded(db, actor, user_uuid, keeps_ownership=role == Role.OWNER)
    user.role = role.value
    await db.flush()
    return user


async def remove(db: AsyncSession, actor: Principal, user_uuid: str) -> User:
    """Remove the member (their sessions end with them, at once); the member as they were."""
    user = await _guarded(db, actor, user_uuid, keeps_ownership=False)
    await BrowserSessionRepository(db).end_all(user.uuid)
    await UserRepository(db).delete(user)
    return user


async def check_email_free(db: AsyncSession, email: str) -> str:
    """The normalised email, or 409 `email_taken` when a person of any account has it (one person, one account)."""
    email = normalise_email(email)
    if await UserRepository(db).by_email(email) is not None:
        raise AppError(ErrorCode.EMAIL_TAKEN, f"{email} already belongs to a member of this service")
    return email


async def add(
    db: AsyncSession, account_uuid: str, *, email: str, name: str, password_hash: str, role: Role, now: datetime
) -> User:
    """A new member (the setup's first owner, or an invitation accepted)."""
    email = await check_email_free(db, email)
    user = User(
        account_uuid=account_uuid,
        email=email,
        name=name.strip() or email,
        password_hash=password_hash,
        role=role.value,
        created_at=now,
    )
    if not await UserRepository(db).add_unless_taken(user):
        raise AppError(ErrorCode.EMAIL_TAKEN, f"{email} already belongs to a member of this service")
    return user


async def by_email(db: AsyncSession, email: str) -> User | None:
    return await UserRepository(db).by_email(normalise_email(email))


async def has_members(db: AsyncSession, account_uuid: str) -> bool:
    return await UserRepository(db).any_of_account(account_uuid)
