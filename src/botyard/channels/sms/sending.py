"""A reply sent as SMS: plain text (Markdown's marks dropped, a citation as its bare URL), its choices as numbered
lines, in messages of at most 10 segments each (`segments`), to a number that has not opted out.

Each message Twilio takes is recorded at once, its SID as the reply's receipt with the count of parts sent, so a
retry sends only the rest. A recipient who sent STOP gets nothing: the reply fails "opted out" before any call, and
Twilio's own 21610 (its opt-out list: the recipient sent STOP to the number) is recorded as an opt-out of ours."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels import buttons, receipts, render
from botyard.channels.calls import ProviderFailed
from botyard.channels.render import Dialect, Reply
from botyard.channels.repository import ReplyRepository
from botyard.channels.sms import segments, twilio
from botyard.channels.sms.api import TwilioApi, TwilioFailed
from botyard.channels.sms.repository import OptOutRepository
from botyard.config import Settings
from botyard.contacts import phones
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import ChannelSend
from botyard.models import Channel, ChannelReply

PLAIN = Dialect(
    marks={name: ("", "") for name in ("strong", "em", "s", "heading")},
    link=lambda href: ("", f" {href}"),
    code=lambda text: text,
    pre=lambda text: text,
    quote=("", ""),
    escape=lambda text: text,
)
"""Text as an SMS shows it: no marks, each link's URL after its text."""
OPTED_OUT = "opted out: the recipient sent STOP to this number (they can send START to receive messages again)"


def texts(canonical: Reply, choices: Sequence[str]) -> list[str]:
    """The reply as the SMS messages it is sent as."""
    [plain] = render.parts(buttons.numbered(canonical, choices), 10**9, PLAIN) or [""]
    return segments.messages(segments.smart(plain))


class SmsSender:
    """Sends replies of SMS channels through Twilio's API."""

    def __init__(self, settings: Settings, api: TwilioApi, clock: Callable[[], datetime]) -> None:
        self.settings = settings
        self.api = api
        self.clock = clock

    async def send(
        self, ctx: JobContext[ChannelSend], reply: ChannelReply, secrets: dict[str, str], parts: list[str]
    ) -> None:
        """The reply's parts not sent yet; `ProviderFailed` (`OPTED_OUT`, Twilio's refusal) when one is not."""
        channel_uuid, to = reply.channel_uuid, reply.recipient
        if await ctx.read(lambda db: OptOutRepository(db).has(channel_uuid, to)):
            raise ProviderFailed(OPTED_OUT, passing=False)
        for number in range(reply.parts_sent, len(parts)):
            try:
                sid = await self._one(channel_uuid, secrets, to, parts[number])
            except TwilioFailed as failed:
                if failed.twilio.unsubscribed:
                    await ctx.write(partial(_opted_out, channel_uuid=channel_uuid, user_id=to, now=self.clock()))
                    raise ProviderFailed(f"{OPTED_OUT} ({failed.reason})", passing=False) from None
                raise
            await ctx.write(partial(_recorded, reply=reply, sid=sid, count=number + 1, now=self.clock()))

    async def send_now(self, channel: Channel, secrets: dict[str, str], to: str, parts: list[str]) -> int:
        """Every part to `to` (a number however it is written) now (the test message): how many went."""
        try:
            number = phones.canonical(to)
        except phones.NotAPhoneNumber:
            raise ProviderFailed(f"{to} is not a phone number in international form", passing=False) from None
        for part in parts:
            await self._one(channel.uuid, secrets, number, part)
        return len(parts)

    async def _one(self, channel_uuid: str, secrets: dict[str, str], to: str, text: str) -> str:
        """One message; its SID. Its statuses come back to the channel's inbound URL (`StatusCallback`)."""
        sid, token = secrets.get("account_sid", ""), secrets.get("auth_token", "")
        sender = secrets.get("phone_number") or secrets.get("messaging_service_sid", "")
        callback = f"{self.settings.public_url.rstrip('/')}/channels/{channel_uuid}/inbound"
        answer = await self.api.send(sid, token, twilio.message_form(to, sender, text, callback))
        return str(answer.get("sid", ""))


async def _opted_out(db: AsyncSession, *, channel_uuid: str, user_id: str, now: datetime) -> None:
    await OptOutRepository(db).add(channel_uuid, user_id, now)


async def _recorded(db: AsyncSession, *, reply: ChannelReply, sid: str, count: int, now: datetime) -> None:
    await ReplyRepository(db).record(reply.uuid, {"parts_sent": count})
    if sid:
        await receipts.sent(db, reply.channel_uuid, sid, reply.uuid, reply.conversation, now)
