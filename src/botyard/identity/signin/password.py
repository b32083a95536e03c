"""Sign-in with an email and a password, slowed for whoever guesses, without locking the person out.

Each attempt, in this order:

1. It takes its place in the counts before its password is checked, in one brief write transaction
   (`throttle.service`): the count of the address tried (whether a member has it or not) and of the client's
   network (IPv4 /24, IPv6 /64, read through `BOTYARD_TRUSTED_PROXIES`), or instead, from a browser whose device
   cookie names this address (`devices`), the count of that device alone. A burst sent at once is limited exactly
   as the same attempts sent one by one.
2. If a count waits, it answers 429 `signin_throttled` with `Retry-After`, counts nowhere and costs no verification.
   An address or a device waits after `THROTTLE_AFTER` attempts, a network after `NETWORK_THROTTLE_AFTER`: 30 s,
   then twice as long after each further one, up to 15 minutes; a count starts again a day after it began (a
   network's after an hour), once it keeps nothing waiting.
3. The password is verified outside any write transaction (on SQLite a writer holds the one write lock), always
   with one argon2 verification: an unknown address and a member without a password (who joined by single sign-on)
   verify a dummy hash, so the answer (status, body, work) tells nobody which addresses exist.
4. Wrong: 401 `signin_failed`, the attempt stays counted. Right: the attempt and, for the address or device, those
   before it are forgiven (a network forgives only this one), and the browser gets its device cookie.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.session import Database
from botyard.errors import AppError, ErrorCode
from botyard.identity.browser_sessions.devices import Device
from botyard.identity.browser_sessions.opening import Opener
from botyard.identity.browser_sessions.sessions import OpenedBrowserSession
from botyard.identity.emails import normalise_email
from botyard.identity.passwords import verify_password
from botyard.identity.signin.throttle import service as throttle
from botyard.identity.signin.throttle.rules import (
    FIRST_WAIT,
    LONGEST_WAIT,
    NETWORK,
    NETWORK_THROTTLE_AFTER,
    THROTTLE_AFTER,
    wait_after,
)
from botyard.identity.users.repository import UserRepository
from botyard.models import User

__all__ = ["FIRST_WAIT", "LONGEST_WAIT", "NETWORK_THROTTLE_AFTER", "THROTTLE_AFTER", "Attempt", "sign_in", "wait_after"]


@dataclass(frozen=True)
class Attempt:
    email: str
    password: str
    client: str
    """The client's address (`client_address.client_address`), whose network is counted."""
    device: Device | None = None
    """The device the browser's cookie names, if it bore a valid one (for any address)."""


@dataclass(frozen=True)
class SignedIn:
    opened: OpenedBrowserSession
    device: Device
    """The device to name in the browser's cookie from now on."""


def _failed() -> AppError:
    return AppError(ErrorCode.SIGNIN_FAILED, "Wrong email or password")


def _throttled(waiting: throttle.Waiting) -> AppError:
    seconds = waiting.seconds
    if waiting.key.rule is NETWORK:
        message = f"Too many wrong passwords from your network: try again in {seconds} s"
    else:
        message = f"Too many wrong passwords: try again in {seconds} s, or ask an admin for a reset link"
    return AppError(ErrorCode.SIGNIN_THROTTLED, message, headers={"Retry-After": str(seconds)})


def counted_keys(email: str, attempt: Attempt) -> list[throttle.Key]:
    """What the attempt counts against: the device alone if its cookie names this address, else the address and
    the network."""
    if attempt.device is not None and attempt.device.email == email:
        return [throttle.device_key(attempt.device.id, throttle.address_key(email).rule)]
    return [throttle.address_key(email), throttle.network_key(attempt.client)]


async def sign_in(database: Database, attempt: Attempt, now: datetime, open_session: Opener) -> SignedIn:
    """A new browser session (`open_session`) for the person with this email and password, or 401 `signin_failed` /
    429 `signin_throttled`."""
    try:
        email = normalise_email(attempt.email)
    except AppError:
        raise _failed() from None  # not an address at all: no member has it, and nothing to count
    keys = counted_keys(email, attempt)
    try:
        places = await database.write_briefly(lambda db: throttle.take_places(db, keys, now))
    except throttle.Waiting as waiting:
        raise _throttled(waiting) from None
    if throttle.began_a_count(places):
        await database.write_briefly(lambda db: throttle.prune(db, now))
    user = await database.read_briefly(lambda db: UserRepository(db).by_email(email))
    if not await verify_password(user.password_hash if user is not None else None, attempt.password):
        raise _failed()
    assert user is not None  # only a stored hash matches
    uuid = user.uuid
    opened = await database.write_briefly(lambda db: _open(db, uuid, places, now, open_session))
    known = attempt.device if attempt.device is not None and attempt.device.email == email else None
    return SignedIn(opened, known or Device.new(email))


async def _open(
    db: AsyncSession, user_uuid: str, places: list[throttle.Place], now: datetime, open_session: Opener
) -> OpenedBrowserSession:
    user: User | None = await UserRepository(db).get(user_uuid)
    if user is None:  # removed between the check and now
        raise _failed()
    await throttle.forgive(db, places, now)
    return await open_session(db, user)
