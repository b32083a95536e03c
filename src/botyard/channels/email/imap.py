"""One IMAP connection to a channel's mailbox (aioimaplib): signed in, its INBOX selected, new mail fetched by UID
without marking it read (`BODY.PEEK[]`), and a wait for new mail: `IDLE` where the server offers it (RFC 2177:
the server tells at once), else a plain pause before the next look.

    MailboxFailed      the server could not be reached, or a command failed or timed out: try again later
     └ MailboxRefused  the server refused the sign-in (the words it gave say why)

The password is handed to the library and appears in no message or log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import aioimaplib

MAX_PER_LOOK = 50
"""At most this many mails are fetched in one look; the next look takes the rest."""
_UIDVALIDITY = re.compile(rb"\[UIDVALIDITY (\d+)\]")
_UIDNEXT = re.compile(rb"\[UIDNEXT (\d+)\]")
_FETCHED_UID = re.compile(rb"\bUID (\d+)\b")


class MailboxFailed(Exception):
    """The mailbox could not be read now; it may work next time."""


class MailboxRefused(MailboxFailed):
    """The server refused the sign-in."""


@dataclass(frozen=True)
class Account:
    host: str
    port: int
    security: str
    """`tls` (IMAPS, port 993) or `none` (plain IMAP: a server on the same machine or network only)."""
    username: str
    password: str

    @classmethod
    def of(cls, secrets: Mapping[str, str]) -> Account:
        security = secrets.get("imap_security") or "tls"
        port = int(secrets.get("imap_port") or (993 if security == "tls" else 143))
        return cls(
            secrets.get("imap_host", ""),
            port,
            security,
            secrets.get("imap_username", ""),
            secrets.get("imap_password", ""),
        )


class Mailbox:
    """A signed-in connection with the INBOX selected (`open`)."""

    def __init__(self, client: Any, uidvalidity: int, uidnext: int, timeout: float) -> None:
        self.client = client
        self.uidvalidity = uidvalidity
        self.uidnext = uidnext
        """The UID the next mail will have, when the server said (0 when not)."""
        self.timeout = timeout

    @property
    def idles(self) -> bool:
        return bool(self.client.has_capability("IDLE"))

    @classmethod
    async def open(cls, account: Account, seconds: float) -> Mailbox:
        """Signed in with the INBOX selected, each step within `seconds`."""
        timeout = seconds
        if account.security == "tls":
            client = aioimaplib.IMAP4_SSL(
                account.host, account.port, timeout=timeout, ssl_context=ssl.create_default_context()
            )
        else:
            client = aioimaplib.IMAP4(account.host, account.port, timeout=timeout)
        try:
            await asyncio.wait_for(client.wait_hello_from_server(), timeout)
            signed = await client.login(account.username, account.password)
            if signed.result != "OK":
                raise MailboxRefused(_words(signed.lines) or "the sign-in was refused")
            selected = await client.select("INBOX")
            if selected.result != "OK":
                raise MailboxFailed(f"the INBOX could not be opened: {_words(selected.lines)}")
        except MailboxFailed:
            await _closed(client)
            raise
        except (OSError, TimeoutError, aioimaplib.AioImapException) as error:
            await _closed(client)
            raise MailboxFailed(f"the IMAP server could not be reached: {type(error).__name__} {error}"[:300]) from None
        joined = b"\n".join(bytes(line) for line in selected.lines)
        validity, uidnext = _UIDVALIDITY.search(joined), _UIDNEXT.search(joined)
        return cls(client, int(validity.group(1)) if validity else 0, int(uidnext.group(1)) if uidnext else 0, timeout)

    async def last_uid(self) -> int:
        """The highest UID in the INBOX now (0: it is empty)."""
        found = await self._uids("UID", "1:*")
        return max(found, default=0)

    async def since(self, uid: int) -> list[tuple[int, bytes]]:
        """The mails whose UID is above `uid`, oldest first, at most `MAX_PER_LOOK` (after a `NOOP`, which lets the
        server tell the connection of mail that arrived since its last command)."""
        await self._command(self.client.noop())
        uids = sorted(found for found in await self._uids("UID", f"{uid + 1}:*") if found > uid)[:MAX_PER_LOOK]
        if not uids:
            return []
        answer = await self._command(self.client.uid("fetch", ",".join(map(str, uids)), "(UID BODY.PEEK[])"))
        mails: list[tuple[int, bytes]] = []
        for number, line in enumerate(answer.lines):
            if isinstance(line, bytearray) and number > 0:
                found = _FETCHED_UID.search(bytes(answer.lines[number - 1]))
                if found is not None and int(found.group(1)) in uids:
                    mails.append((int(found.group(1)), bytes(line)))
        return sorted(mails)

    async def wait(self, seconds: float) -> None:
        """Until the server says something changed (`IDLE`), or `seconds` have passed."""
        if seconds <= 0:
            return
        if not self.idles:
            await asyncio.sleep(seconds)
            return
        try:
            idle = await self.client.idle_start(timeout=seconds)
            with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
                await self.client.wait_server_push(timeout=seconds)
            if self.client.has_pending_idle():
                self.client.idle_done()
            await asyncio.wait_for(idle, self.timeout)
        except (OSError, TimeoutError, aioimaplib.AioImapException) as error:
            raise MailboxFailed(f"IDLE failed: {type(error).__name__} {error}"[:300]) from None

    async def close(self) -> None:
        await _closed(self.client)

    async def _uids(self, *criteria: str) -> list[int]:
        answer = await self._command(self.client.uid_search(*criteria))
        words = b" ".join(bytes(line) for line in answer.lines[:-1])
        return [int(word) for word in words.split() if word.isdigit()]

    async def _command(self, call: Any) -> Any:
        try:
            answer = await call
        except (OSError, TimeoutError, aioimaplib.AioImapException) as error:
            raise MailboxFailed(f"the IMAP server failed: {type(error).__name__} {error}"[:300]) from None
        if answer.result != "OK":
            raise MailboxFailed(f"the IMAP server answered {answer.result}: {_words(answer.lines)}")
        return answer


def _words(lines: Any) -> str:
    return " ".join(bytes(line).decode("utf-8", "replace") for line in lines if not isinstance(line, bytearray))[:300]


async def _closed(client: Any) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(client.logout(), 2)
    with contextlib.suppress(Exception):
        client.protocol.transport.close()
