"""Secrets at rest: the stored settings' secrets are Fernet tokens (AES-128-CBC with an HMAC, from `cryptography`).

The key is `BOTYARD_SECRET_KEY` when set, else `data_dir/secret.key`, made once (mode 0600) the first time a
secret is stored. Processes that share a database on several machines need the same key: set the variable on each.
A token the key cannot open (the key changed or the file was lost) reads as no value, and the page says so.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from botyard.config import Settings

log = logging.getLogger(__name__)

KEY_FILE = "secret.key"


class Cipher:
    """Seals and opens the stored secrets with the instance's key (read or made on first use, not at start-up)."""

    def __init__(self, settings: Settings) -> None:
        self._given = settings.secret_key.get_secret_value().encode() if settings.secret_key is not None else None
        self._path = settings.data_dir / KEY_FILE
        self._fernet: Fernet | None = None

    def seal(self, plain: str) -> str:
        return self._key(create=True).encrypt(plain.encode()).decode("ascii")

    def open(self, token: str) -> str | None:
        """The plain secret, or None when this key cannot open the token."""
        try:
            return self._key(create=False).decrypt(token.encode("ascii")).decode()
        except (InvalidToken, FileNotFoundError, ValueError):
            log.warning(
                "a stored secret cannot be opened with this instance's key (BOTYARD_SECRET_KEY or %s)", KEY_FILE
            )
            return None

    def derived_key(self, purpose: str) -> bytes:
        """A key for `purpose` (signing what processes share through the database) derived from the instance's key,
        so that it needs no secret of its own and is never the key that seals secrets."""
        key = self._given if self._given is not None else _read_or_make(self._path, create=True)
        return hmac.new(key, b"botyard:" + purpose.encode(), hashlib.sha256).digest()

    def _key(self, *, create: bool) -> Fernet:
        if self._fernet is None:
            key = self._given if self._given is not None else _read_or_make(self._path, create=create)
            self._fernet = Fernet(key)
        return self._fernet


def _read_or_make(path: Path, *, create: bool) -> bytes:
    if path.exists() or not create:
        return path.read_bytes().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Fernet.generate_key()
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return path.read_bytes().strip()
    with os.fdopen(descriptor, "wb") as file:
        file.write(key)
    log.info("made the key that encrypts stored secrets: %s (keep it with the database's backups)", path)
    return key
