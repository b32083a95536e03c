"""Passwords: argon2id through argon2-cffi, with its recommended parameters (RFC 9106's second choice: 64 MiB,
3 passes). Hashing takes tens of milliseconds on purpose, so it runs in a worker thread, off the event loop, and at
most `CONCURRENT_HASHES` at once per process: a flood of sign-in attempts (anyone may send them) then queues for its
turn instead of taking every core and 64 MiB per attempt."""

from __future__ import annotations

import threading

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


async def verify_password(stored: str | None, password: str) -> bool:
    """Whether `password` is the one `stored` hashes. With no stored hash (an unknown email) a dummy one is verified
    all the same, so that the answer takes as long and tells nobody which emails exist."""
    if len(password) > MAX_LENGTH:
        return False
    matched = await anyio.to_thread.run_sync(_verify, stored or _DUMMY, password)
    return matched and stored is not None
