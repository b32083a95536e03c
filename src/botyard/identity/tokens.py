"""Secrets handed to a browser or a person (session cookies, cross-site tokens, invitation and reset links): random,
unguessable, and stored only as their SHA-256 (a secret of 256 random bits needs no slow hash)."""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def matches(token: str, stored_hash: str) -> bool:
    return secrets.compare_digest(hash_token(token), stored_hash)
