"""The channels a process listens to: Telegram without a public address (long polling, `getUpdates`, for a
channel whose `mode` is `polling`), and every email channel's mailbox (`channels.email.listener`: IMAP, `IDLE`).
What follows says it of Telegram; a mailbox is held, renewed, fenced and taken over the same way, its last UID as
the offset.

Exactly one process polls a bot, across every process and machine: the one that holds the channel's lease
(`channel.poll_holder` until `poll_expires_at`, `BOTYARD_CHANNEL_POLL_LEASE_SECONDS` after its last renewal), taken
with one conditional UPDATE and renewed at every turn. A holder that dies stops renewing; once the lease has expired,
another process's next look takes it over and goes on from the stored offset. A turn's long poll waits at most a
third of the lease, so that a living holder renews long before its lease runs out. So two `getUpdates` of one bot
never overlap, and Telegram's 409 ("terminated by other getUpdates request") does not happen. Each turn stores what
Telegram gave (`intake.store`: a repeat is a no-op) and only then moves the offset past it, so an update is neither
lost (the offset confirms only what is stored) nor answered twice (its `update_id` is stored once). A channel that
does not poll costs nothing: one query per look finds the polling ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from botyard.channels import intake, telegram
from botyard.channels.calls import ProviderFailed, TelegramApi
from botyard.channels.email.listener import MailboxListeners
from botyard.channels.email.receiver import MailReceiver
from botyard.channels.inbound import NotTheShape
from botyard.channels.repository import ChannelRepository
from botyard.channels.service import open_secrets
from botyard.config import Settings
from botyard.db.base import utcnow
from botyard.db.session import Database
from botyard.egress import EgressClient
from botyard.models import Channel, ChannelType

log = logging.getLogger(__name__)

LOOK_SECONDS = 5.0
"""How often a process looks for polling channels nobody holds."""
LONG_POLL_SECONDS = 10
"""How long one `getUpdates` waits for an update at most (within the egress client's read timeout), and never more
than a third of the lease."""
PAUSE_AFTER_FAILURE = 5.0


class ChannelPollers:
    """The polling of every channel this process holds, where jobs run (`Runtime.start_jobs`)."""

    def __init__(
        self,
        database: Database,
        settings: Settings,
        egress: EgressClient,
        clock: Callable[[], datetime] = utcnow,
        *,
        look_seconds: float = LOOK_SECONDS,
        long_poll_seconds: int | None = None,
    ) -> None:
        self.database = database
        self.settings = settings
        self.api = TelegramApi(egress, settings.telegram_api_url)
        self.clock = clock
        self.look_seconds = look_seconds
        self.lease = timedelta(seconds=settings.channel_poll_lease_seconds)
        within = min(LONG_POLL_SECONDS, int(settings.channel_poll_lease_seconds // 3))
        self.long_poll_seconds = within if long_poll_seconds is None else long_poll_seconds
        self.mailboxes = MailboxListeners(database, settings, clock)
        self.receiver = MailReceiver(database, settings, clock) if settings.channel_mail_smtp_port is not None else None
        self.me = secrets.token_hex(16)
        """This process's name in the leases."""
        self.polling: dict[str, asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="channel-pollers")
        if self.receiver is not None:
            self._receiving = asyncio.create_task(self.receiver.start(), name="channel-mail-receiver")

    async def stop(self) -> None:
        """Stop polling and give the leases back, so that another process takes over at once."""
        self._stopping.set()
        held = list(self.polling)
        tasks = [task for task in (self._task, *self.polling.values()) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel_uuid in held:
            with contextlib.suppress(Exception):
                await self._release(channel_uuid)
        self.polling.clear()
        await self.mailboxes.close_all()
        if self.receiver is not None:
            await self.receiver.stop()

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.look()
            except Exception:  # a database hiccup: the next look will do
                log.exception("the channel pollers' look failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.look_seconds)

    async def look(self) -> None:
        """Take the lease of each polling channel nobody holds, and poll it."""
        async with self.database.transaction(write=False) as db:
            found = await ChannelRepository(db).polling()
        for channel_uuid in found:
            if channel_uuid not in self.polling and await self._take(channel_uuid):
                task = asyncio.create_task(self._poll(channel_uuid), name=f"poll-{channel_uuid}")
                self.polling[channel_uuid] = task
                task.add_done_callback(partial(self._forget, channel_uuid))

    def _forget(self, channel_uuid: str, task: asyncio.Task[None]) -> None:
        if self.polling.get(channel_uuid) is task:
            del self.polling[channel_uuid]

    async def _take(self, channel_uuid: str) -> bool:
        now = self.clock()
        async with self.database.transaction() as db:
            return await ChannelRepository(db).take_lease(channel_uuid, self.me, now, now + self.lease)

    async def _release(self, channel_uuid: str) -> None:
        async with self.database.transaction() as db:
            await ChannelRepository(db).release_lease(channel_uuid, self.me)

    async def _poll(self, channel_uuid: str) -> None:
        while await self.turn(channel_uuid):
            pass

    async def turn(self, channel_uuid: str) -> bool:
        """One `getUpdates` and what it gave stored; False when this process no longer holds the channel (it was
        deleted, switched to webhook, disabled, or its lease was taken over)."""
        now = self.clock()
        async with self.database.transaction() as db:
            channels = ChannelRepository(db)
            held = await channels.take_lease(channel_uuid, self.me, now, now + self.lease)
            channel = await channels.get(channel_uuid) if held else None
        if channel is None:
            await self.mailboxes.close(channel_uuid)
            return False
        if channel.type == ChannelType.EMAIL:
            return await self.mailboxes.turn(channel, self.me, self.long_poll_seconds)
        token = open_secrets(self.settings, channel).get("bot_token", "")
        try:
            updates = await self.api.call(token, telegram.get_updates(channel.poll_offset, self.long_poll_seconds))
        except ProviderFailed as failed:
            log.warning("channel %s: getUpdates failed: %s", channel_uuid, failed.reason)
            await asyncio.sleep(failed.retry_after or PAUSE_AFTER_FAILURE)
            return True
        if not isinstance(updates, list) or not updates:
            return True
        try:
            await self._store(channel, updates)
        except _LeaseLost:  # another process holds it now: nothing of this turn was kept, its turns get them
            return False
        return True

    async def _store(self, channel: Channel, updates: list[Any]) -> None:
        """The updates stored and the offset moved past them, in one transaction, only while this process holds the
        lease."""
        offset = channel.poll_offset
        async with self.database.transaction() as db:
            for update in updates:
                try:
                    delivery = telegram.delivery(update)
                except NotTheShape as error:
                    log.warning("channel %s: an update that is not Telegram's shape (%s): skipped", channel.uuid, error)
                    continue
                await intake.store(db, channel, delivery, self.clock())
                offset = max(offset, delivery.position + 1)
            if not await ChannelRepository(db).move_offset(channel.uuid, self.me, offset):
                raise _LeaseLost(channel.uuid)


class _LeaseLost(Exception):
    """The channel's lease went to another process during a turn."""
