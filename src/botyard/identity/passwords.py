"""Passwords: argon2id through argon2-cffi, with its recommended parameters (RFC 9106's second choice: 64 MiB,
3 passes). Hashing takes tens of milliseconds on purpose, so it runs in a worker thread, off the event loop, and at
most `CONCURRENT_HASHES` at once per process: a flood of sign-in attempts (anyone may send them) then queues for its
turn instead of taking every core and 64 MiB per attempt."""

from __future__ import annotations

import threading
from typing import TypeGuard

import anyio
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from botyard.errors import validation_error

MIN_LENGTH = 10
MAX_LENGTH = 256
CONCURRENT_HASHES = 2
_hasher = PasswordHasher()
_turns = threading.BoundedSemaphore(CONCURRENT_HASHES)  # held in the worker thread: no event loop of its own
_DUMMY = _hasher.hash("a password nobody has, verified when the email is unknown")


def check_policy(password: str) -> None:
    """Long enough to resist guessing; no composition rules (NIST SP 800-63B)."""
    if len(password) < MIN_LENGTH:
        raise validation_error(f"The password is too short: use at least {MIN_LENGTH} characters")
    if len(password) > MAX_LENGTH:
        raise validation_error(f"The password is too long: use at most {MAX_LENGTH} characters")


def _hash(password: str) -> str:
    with _turns:
        return _hasher.hash(password)


async def hash_password(password: str) -> str:
    check_policy(password)
    return await anyio.to_thread.run_sync(_hash, password)


def _verify(stored: str, password: str) -> bool:
    with _turns:
        try:
            return _hasher.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False


def is_hash(stored: str | None) -> TypeGuard[str]:
    """Whether `stored` is an argon2 hash (not None for an unknown email, nor the no-password marker of a member
    who joined by single sign-on, `members.NO_PASSWORD`)."""
    return stored is not None and stored.startswith("$argon2")


async def verify_password(stored: str | None, password: str) -> bool:
    """Whether `password` is the one `stored` hashes. Without a stored hash (an unknown email, or a member who has
    no password) a dummy one is verified all the same, so that the answer costs as much and tells nobody which
    emails exist or how their people joined."""
    if len(password) > MAX_LENGTH:
        return False
    usable = stored if is_hash(stored) else None
    matched = await anyio.to_thread.run_sync(_verify, usable or _DUMMY, password)
    return matched and usable is not None
