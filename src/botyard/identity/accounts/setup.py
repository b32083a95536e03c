"""First run without a terminal: while no account exists, `botyard serve` prints a one-time setup link
(`/dashboard#setup=<token>`); the dashboard trades the token and an email address for the first account and its key.

The token is a secret file in the data directory (mode 0600), so only whoever started the service can read it; the
link carries it in the URL fragment, which browsers never send to a server. It works once: the first account ends it,
and once any account exists the endpoint refuses (409). A wrong token is refused (403) without telling more.
"""

from __future__ import annotations

import asyncio
import hmac
import os
import secrets
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.config import Settings
from botyard.errors import AppError, ErrorCode
from botyard.identity.accounts.repository import AccountRepository
from botyard.identity.accounts.service import IssuedKey, issue_key

TOKEN_FILE = "setup-token"  # noqa: S105 (a file name, not a secret)
_claim = asyncio.Lock()  # two quick clicks of the link in one process: one account


def token_path(settings: Settings) -> Path:
    return settings.data_dir / TOKEN_FILE


def offer(settings: Settings) -> str:
    """The setup token (the one already offered, or a new one), kept in the data directory."""
    path = token_path(settings)
    if path.exists():
        return path.read_text().strip()
    token = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(token)
    return token


async def needs_setup(db: AsyncSession) -> bool:
    return not await AccountRepository(db).any_exists()


async def claim(db: AsyncSession, settings: Settings, token: str, email: str) -> IssuedKey:
    """The first account and its key, for the holder of the setup token."""
    async with _claim:
        if not await needs_setup(db):
            raise AppError(ErrorCode.SETUP_DONE, "This service has an account already: sign in with its key")
        path = token_path(settings)
        expected = path.read_text().strip() if path.exists() else ""
        if not expected or not hmac.compare_digest(expected.encode(), token.encode()):
            raise AppError(ErrorCode.SETUP_REFUSED, "This setup link is not valid: use the one botyard serve printed")
        issued = await issue_key(db, email)
        await db.flush()
        path.unlink(missing_ok=True)
        return issued
