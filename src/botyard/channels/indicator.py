"""The customer sees that an answer is being made, on each channel in its own way, for as long as it is made.

- Telegram: `sendChatAction` "typing", which Telegram shows for 5 seconds or until the bot's next message: sent
  again every `TELEGRAM_EVERY_SECONDS` while the answer is made (an LLM's answer may take longer than 5 s).
- Slack: the thread's status (`assistant.threads.setStatus`, "is typing..."), which Slack shows until the app
  posts in the thread. Slack takes it only in an assistant thread (an app with Slack's AI features on); anywhere
  else it refuses, and the reply comes without an indicator. Only a thread has one: a direct message outside an
  assistant thread has no thread to set it on.
- The generic channel: one signed `typing` event POSTed to the callback URL; its `message` ends it.
- WhatsApp: the customer's message marked as read with the typing indicator (shown until the reply, 25 s at most);
  Messenger and Instagram: `mark_seen` then `typing_on` (20 s), repeated (`channels.graph`).

An indicator is a courtesy: a failure to show it is dropped (the reply is what matters) and stops its repetition.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime

from botyard.channels import slack, telegram
from botyard.channels.calls import Callback, ProviderFailed, SlackApi, TelegramApi
from botyard.channels.graph import MESSENGER_TYPING_EVERY, MetaSender
from botyard.channels.meta import META_TYPES
from botyard.models import Channel, ChannelEvent, ChannelType
from botyard.outbox import signing

TELEGRAM_EVERY_SECONDS = 4.0
"""Under Telegram's 5 seconds, so the indicator never lapses while the answer is made."""
SLACK_STATUS = "is typing..."

Show = Callable[[], Awaitable[object]]


async def _show(show: Show) -> bool:
    """Whether the indicator was shown (a refusal or a network failure drops it)."""
    try:
        await show()
    except ProviderFailed:
        return False
    return True


async def _repeat(show: Show, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        if not await _show(show):
            return


@contextlib.asynccontextmanager
async def shown(show: Show | None, every: float | None) -> AsyncIterator[None]:
    """The indicator shown before the block runs (so it is there before any answer, however fast), then, with
    `every`, repeated in the background while the block runs; stopped when it ends."""
    if show is None or not await _show(show) or every is None:
        yield
        return
    task = asyncio.create_task(_repeat(show, every))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class Indicators:
    """What shows "typing" on each kind of channel, through the providers' clients (and so the egress client)."""

    def __init__(
        self,
        telegram_api: TelegramApi,
        slack_api: SlackApi,
        callback: Callback,
        clock: Callable[[], datetime],
        meta: MetaSender | None = None,
    ) -> None:
        self.telegram_api = telegram_api
        self.slack_api = slack_api
        self.callback = callback
        self.clock = clock
        self.meta = meta

    def of(self, channel: Channel, secrets: dict[str, str], last: ChannelEvent) -> tuple[Show | None, float | None]:
        """How the channel shows that an answer is made for the conversation of `last`, and how often to repeat
        it (None: once); `(None, None)` where there is nothing to show it on."""
        if channel.type == ChannelType.TELEGRAM and secrets.get("bot_token"):
            token = secrets["bot_token"]
            return (lambda: self.telegram_api.call(token, telegram.typing(last.thread))), TELEGRAM_EVERY_SECONDS
        if channel.type == ChannelType.SLACK and secrets.get("bot_token"):
            where, ts = slack.recipient(last.thread)
            if not ts:
                return None, None
            token, call = secrets["bot_token"], slack.set_status(where, ts, SLACK_STATUS)
            return (lambda: self.slack_api.call(token, call)), None
        if channel.type in META_TYPES and self.meta is not None and secrets.get("access_token"):
            every = None if channel.type == ChannelType.WHATSAPP else MESSENGER_TYPING_EVERY
            return self.meta.typing(channel, secrets, last), every
        if channel.type == ChannelType.GENERIC and secrets.get("callback_url"):
            return (lambda: self._post_typing(secrets, last)), None
        return None, None

    async def _post_typing(self, secrets: dict[str, str], last: ChannelEvent) -> None:
        event_id = f"typing-{last.uuid}"
        body = json.dumps({"id": event_id, "type": "typing", "user": {"id": last.user_id}, "thread": last.thread})
        data = body.encode()
        headers = signing.headers(secrets.get("signing_secret", ""), event_id, int(self.clock().timestamp()), data)
        await self.callback.post(secrets["callback_url"], headers, data)
