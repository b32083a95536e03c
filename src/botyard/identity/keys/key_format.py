"""API key format: `by_` + 32 random base62 characters + a 6-character checksum.

The checksum lets a malformed or mistyped key be refused without touching the database. Keys are stored only as
their SHA-256; the first 11 characters (`prefix`) name a key in listings and for revocation.
"""

from __future__ import annotations

import hashlib
import secrets
import zlib

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
KEY_PREFIX = "by_"
RANDOM_LENGTH = 32
CHECKSUM_LENGTH = 6
KEY_LENGTH = len(KEY_PREFIX) + RANDOM_LENGTH + CHECKSUM_LENGTH
DISPLAY_PREFIX_LENGTH = len(KEY_PREFIX) + 8


def _base62(number: int, width: int) -> str:
    digits = []
    for _ in range(width):
        number, rem = divmod(number, 62)
        digits.append(ALPHABET[rem])
    return "".join(reversed(digits))


def _checksum(body: str) -> str:
    return _base62(zlib.crc32(body.encode()), CHECKSUM_LENGTH)


def generate_key() -> str:
    body = KEY_PREFIX + "".join(secrets.choice(ALPHABET) for _ in range(RANDOM_LENGTH))
    return body + _checksum(body)


def is_well_formed(key: str) -> bool:
    if len(key) != KEY_LENGTH or not key.startswith(KEY_PREFIX):
        return False
    if any(char not in ALPHABET for char in key[len(KEY_PREFIX) :]):
        return False
    body, checksum = key[:-CHECKSUM_LENGTH], key[-CHECKSUM_LENGTH:]
    return secrets.compare_digest(checksum, _checksum(body))


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def display_prefix(key: str) -> str:
    return key[:DISPLAY_PREFIX_LENGTH]
