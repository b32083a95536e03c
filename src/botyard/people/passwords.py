"""Passwords: argon2id through argon2-cffi, with its recommended parameters (RFC 9106's second choice: 64 MiB,
3 passes). Hashing takes tens of milliseconds on purpose, so it runs in a worker thread, off the event loop."""

from __future__ import annotations

import anyio
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from botyard.errors import validation_error

MIN_LENGTH = 10
MAX_LENGTH = 256
_hasher = PasswordHasher()
_DUMMY = _hasher.hash("a password nobody has, verified when the email is unknown")


def check_policy(password: str) -> None:
    """Long enough to resist guessing; no composition rules (NIST SP 800-63B)."""
    if len(password) < MIN_LENGTH:
        raise validation_error(f"The password is too short: use at least {MIN_LENGTH} characters")
    if len(password) > MAX_LENGTH:
        raise validation_error(f"The password is too long: use at most {MAX_LENGTH} characters")


async def hash_password(password: str) -> str:
    check_policy(password)
    return await anyio.to_thread.run_sync(_hasher.hash, password)


def _verify(stored: str, password: str) -> bool:
    try:
        return _hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


async def verify_password(stored: str | None, password: str) -> bool:
    """Whether `password` is the one `stored` hashes. With no stored hash (an unknown email) a dummy one is verified
    all the same, so that the answer takes as long and tells nobody which emails exist."""
    if len(password) > MAX_LENGTH:
        return False
    matched = await anyio.to_thread.run_sync(_verify, stored or _DUMMY, password)
    return matched and stored is not None
