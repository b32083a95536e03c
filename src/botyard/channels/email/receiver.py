"""The built-in SMTP receiver (aiosmtpd, off unless `BOTYARD_CHANNEL_MAIL_SMTP_PORT` is set): mail delivered to
this service by SMTP, for a mailbox-less setup, stored as the mailbox's listener stores what it reads
(`listener.store_mail`: once per `Message-ID`, in its thread, robots' mail unanswered).

It accepts a recipient only when it is an enabled email channel's address (or that address with a `+tag`), and
refuses every other one (550), so it relays nothing. It checks no sender (no SPF, no DMARC): put it behind the
domain's own mail server, which checks them and relays the channels' mail to it, never open on the internet.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from aiosmtpd.smtp import SMTP

from botyard.channels.email.listener import store_mail
from botyard.channels.repository import ChannelRepository
from botyard.channels.service import open_secret
from botyard.config import Settings
from botyard.db.session import Database
from botyard.models import Channel, ChannelType

log = logging.getLogger(__name__)

MAX_BYTES = 25 * 1024 * 1024
"""The largest mail taken (a larger one is refused with 552 by aiosmtpd), as common providers' limit."""


class MailReceiver:
    """An SMTP server on this process's event loop; `port` is the one it bound (0 asks the kernel for one)."""

    def __init__(self, database: Database, settings: Settings, clock: Callable[[], datetime]) -> None:
        self.database = database
        self.settings = settings
        self.clock = clock
        self.port = settings.channel_mail_smtp_port or 0
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        host = self.settings.channel_mail_smtp_host

        def protocol() -> SMTP:
            return SMTP(self, data_size_limit=MAX_BYTES, hostname="botyard", timeout=60)

        self._server = await loop.create_server(protocol, host=host, port=self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("the email channels' SMTP receiver listens on %s:%s", host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if await self._channel_of(address) is None:
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        position = time.time_ns() // 1_000_000
        for address in dict.fromkeys(recipient.lower() for recipient in envelope.rcpt_tos):
            found = await self._channel_of(address)
            if found is None:
                continue
            channel, own = found
            async with self.database.transaction() as db:
                await store_mail(db, channel, raw, own, position, self.clock())
        return "250 OK"

    async def _channel_of(self, address: str) -> tuple[Channel, str] | None:
        """The enabled email channel whose address this is (a `+tag` of it too), and that address."""
        local, _, domain = address.lower().partition("@")
        bare = f"{local.partition('+')[0]}@{domain}"
        async with self.database.transaction(write=False) as db:
            channels = await ChannelRepository(db).enabled_of_type(ChannelType.EMAIL)
        for channel in channels:
            own = (open_secret(self.settings, channel, "address") or "").lower()
            if own and own in (address.lower(), bare):
                return channel, own
        return None
