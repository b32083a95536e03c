"""A mailbox's listener: one turn of the channel's lease (`channels.polling`) reads what arrived and waits for more.

A turn, while this process holds the channel's lease:

1. The mailbox's connection, kept from the last turn, else opened (signed in, INBOX selected); a failure is the
   channel's `last_error`, and the turn ends after a pause.
2. Its `UIDVALIDITY` compared with the one stored (`poll_state`): when the server renumbered the mailbox, the UIDs
   stored mean nothing any more, and the listener goes on from the mailbox's newest mail (mail already stored is
   known by its `Message-ID`, so none is answered twice).
3. The mails above the stored UID (`poll_offset`) fetched, each read, joined to its thread and stored (`intake`:
   a repeat is a no-op), and the UID moved past them, in one transaction, only while the lease is still held.
4. A wait for new mail: `IDLE` up to the turn's length, else a pause of `channel_mail_poll_seconds`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels import intake
from botyard.channels.email import reading, threads
from botyard.channels.email.imap import Account, Mailbox, MailboxFailed
from botyard.channels.inbound import Delivery, Said
from botyard.channels.repository import ChannelRepository
from botyard.channels.service import open_secrets
from botyard.config import Settings
from botyard.db.session import Database
from botyard.models import Channel

log = logging.getLogger(__name__)

PAUSE_AFTER_FAILURE = 5.0
IMAP_TIMEOUT = 15.0


class MailboxListeners:
    """The open mailboxes of the channels this process holds."""

    def __init__(self, database: Database, settings: Settings, clock: Callable[[], datetime]) -> None:
        self.database = database
        self.settings = settings
        self.clock = clock
        self.open: dict[str, Mailbox] = {}

    async def turn(self, channel: Channel, holder: str, wait_seconds: float) -> bool:
        """One look at the mailbox and one wait; False when the lease was lost meanwhile."""
        try:
            mailbox = await self._mailbox(channel)
            offset, state = await self._start(channel, mailbox)
            mails = await mailbox.since(offset)
            moved = mails or state != channel.poll_state or offset != channel.poll_offset
            if moved and not await self._store(channel, holder, mails, offset, state):
                await self.close(channel.uuid)
                return False
            if not mails:
                await mailbox.wait(
                    wait_seconds if mailbox.idles else min(wait_seconds, self.settings.channel_mail_poll_seconds)
                )
        except MailboxFailed as failed:
            log.warning("channel %s: the mailbox could not be read: %s", channel.uuid, failed)
            await self.close(channel.uuid)
            await self._note(channel.uuid, f"mailbox: {failed}")
            await asyncio.sleep(PAUSE_AFTER_FAILURE)
        return True

    async def close(self, channel_uuid: str) -> None:
        mailbox = self.open.pop(channel_uuid, None)
        if mailbox is not None:
            await mailbox.close()

    async def close_all(self) -> None:
        for channel_uuid in list(self.open):
            with contextlib.suppress(Exception):
                await self.close(channel_uuid)

    async def _mailbox(self, channel: Channel) -> Mailbox:
        mailbox = self.open.get(channel.uuid)
        if mailbox is None:
            mailbox = await Mailbox.open(Account.of(open_secrets(self.settings, channel)), IMAP_TIMEOUT)
            self.open[channel.uuid] = mailbox
        return mailbox

    async def _start(self, channel: Channel, mailbox: Mailbox) -> tuple[int, dict[str, object]]:
        """Where to read from: the stored UID, or the newest mail's when the mailbox was renumbered (or never
        read)."""
        state: dict[str, object] = {**channel.poll_state, "uidvalidity": mailbox.uidvalidity}
        if channel.poll_state.get("uidvalidity") == mailbox.uidvalidity:
            return channel.poll_offset, state
        if channel.poll_state.get("uidvalidity") is not None:
            log.warning("channel %s: the mailbox's UIDVALIDITY changed: reading from its newest mail", channel.uuid)
        return await mailbox.last_uid(), state

    async def _store(
        self, channel: Channel, holder: str, mails: list[tuple[int, bytes]], offset: int, state: dict[str, object]
    ) -> bool:
        address = open_secrets(self.settings, channel).get("address", "")
        async with self.database.transaction() as db:
            for uid, raw in mails:
                await store_mail(db, channel, raw, address, uid, self.clock())
                offset = max(offset, uid)
            return await ChannelRepository(db).move_offset(channel.uuid, holder, offset, dict(state))

    async def _note(self, channel_uuid: str, error: str) -> None:
        with contextlib.suppress(Exception):
            async with self.database.transaction() as db:
                await ChannelRepository(db).note(
                    channel_uuid, {"last_error": error[:500], "last_error_at": self.clock()}
                )


async def store_mail(
    db: AsyncSession, channel: Channel, raw: bytes, address: str, position: int, now: datetime
) -> bool:
    """One mail stored on the channel (and its answer queued, unless it must not be answered): False for a
    repeat. The built-in SMTP receiver would store the mails it takes the same way."""
    mail = reading.read(raw, address)
    said = None
    if mail.unanswered is None and mail.text:
        thread = await threads.thread_of(db, channel.uuid, mail)
        said = Said(mail.sender, mail.sender_name or mail.sender, thread, mail.text)
    return await intake.store(db, channel, Delivery(mail.external_id, position, said, details=mail.details()), now)
