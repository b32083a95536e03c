"""Passwords are argon2id hashes, verified in worker threads at most `CONCURRENT_HASHES` at a time per process, so a
flood of sign-in attempts queues instead of taking every core and 64 MiB per attempt."""

from __future__ import annotations

import asyncio
import threading
from typing import Literal

import pytest
from argon2 import PasswordHasher

from botyard.identity import passwords


class CountingHasher(PasswordHasher):
    """The real hasher, counting how many of its verifications run at once."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            return super().verify(hash, password)
        finally:
            with self.lock:
                self.running -= 1


def test_a_flood_of_verifications_runs_a_few_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = CountingHasher()
    monkeypatch.setattr(passwords, "_hasher", counting)
    stored = counting.hash("the right password")

    async def flood() -> list[bool]:
        attempts = [passwords.verify_password(stored, f"guess {n}") for n in range(12)]
        return await asyncio.gather(*attempts, passwords.verify_password(stored, "the right password"))

    results = asyncio.run(flood())
    assert results == [False] * 12 + [True]
    assert counting.most == passwords.CONCURRENT_HASHES  # they did overlap, up to the bound and no further


def test_hashes_are_argon2id_and_never_the_password() -> None:
    stored = asyncio.run(passwords.hash_password("a long enough password"))
    assert stored.startswith("$argon2id$") and "a long enough password" not in stored
    assert asyncio.run(passwords.verify_password(stored, "a long enough password"))
    assert not asyncio.run(passwords.verify_password(None, "a long enough password"))  # an unknown email
    with pytest.raises(Exception, match="at least 10"):
        asyncio.run(passwords.hash_password("short"))
