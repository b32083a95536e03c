"""Sign-in with an email and a password, slowed after wrong passwords.

Each attempt costs an argon2 verification (tens of milliseconds of one core, also for an unknown email, so that the
answer does not tell which emails exist). Past `THROTTLE_AFTER` wrong passwords in a row for one person, sign-in
waits: 30 s, then twice as long after each further wrong one, up to 15 minutes; meanwhile every attempt answers 429
`signin_throttled` with `Retry-After`, the right password included, and costs no verification. The count lives on
the person's row, so it holds across processes; the right password (or a reset) clears it.

The password is verified outside any write transaction (on SQLite a writer holds the one write lock), and the
outcome is written in a brief one of its own.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.session import Database
from botyard.errors import AppError, ErrorCode
from botyard.models import User
from botyard.people.emails import normalise_email
from botyard.people.passwords import verify_password
from botyard.people.repository import UserRepository
from botyard.people.sessions import OpenedSession, open_session

THROTTLE_AFTER = 5
FIRST_WAIT = timedelta(seconds=30)
LONGEST_WAIT = timedelta(minutes=15)


def wait_after(failures: int) -> timedelta | None:
    """How long sign-in waits after this many wrong passwords in a row (None: not at all)."""
    if failures < THROTTLE_AFTER:
        return None
    doubled: timedelta = FIRST_WAIT * 2 ** min(failures - THROTTLE_AFTER, 16)
    return min(doubled, LONGEST_WAIT)


def _failed() -> AppError:
    return AppError(ErrorCode.SIGNIN_FAILED, "Wrong email or password")


async def sign_in(database: Database, email: str, password: str, now: datetime, lifetime: timedelta) -> OpenedSession:
    """A new session for the person with this email and password, or 401 `signin_failed` / 429 `signin_throttled`."""
    try:
        email = normalise_email(email)
    except AppError:
        raise _failed() from None
    user = await database.read_briefly(lambda db: UserRepository(db).by_email(email))
    if user is not None and user.signin_blocked_until is not None and user.signin_blocked_until > now:
        seconds = math.ceil((user.signin_blocked_until - now).total_seconds())
        raise AppError(
            ErrorCode.SIGNIN_THROTTLED,
            f"Too many wrong passwords: try again in {seconds} s, or ask an admin for a reset link",
            headers={"Retry-After": str(seconds)},
        )
    matched = await verify_password(user.password_hash if user is not None else None, password)
    if user is None:
        raise _failed()
    uuid = user.uuid
    if not matched:
        await database.write_briefly(lambda db: _count_failure(db, uuid, now))
        raise _failed()
    return await database.write_briefly(lambda db: _open(db, uuid, now, lifetime))


async def _count_failure(db: AsyncSession, user_uuid: str, now: datetime) -> None:
    user = await UserRepository(db).get(user_uuid)
    if user is None:
        return
    user.failed_signins += 1
    wait = wait_after(user.failed_signins)
    user.signin_blocked_until = now + wait if wait is not None else None
    await db.flush()


async def _open(db: AsyncSession, user_uuid: str, now: datetime, lifetime: timedelta) -> OpenedSession:
    user: User | None = await UserRepository(db).get(user_uuid)
    if user is None:  # removed between the check and now
        raise _failed()
    user.failed_signins = 0
    user.signin_blocked_until = None
    return await open_session(db, user, now, lifetime)
