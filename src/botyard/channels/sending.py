"""The `channel_send` job: one attempt to send a reply on its channel.

Replies of one conversation go out in order: a reply whose earlier one is still pending waits for it (its job comes
back a second later, without counting an attempt). Sent: the stored answer rendered for the channel
(`channels.render`); a long one in parts, and a retry sends only the parts the provider does not have yet. Its
choices (`channels.buttons`) go as buttons on its last part, or as numbered lines where the channel cannot show
them. A network failure, a timeout, a 5xx or a 429 is tried again after `RETRY_DELAYS` (after the provider's
`retry_after` when it is longer); any other refusal fails at once. Each outcome is written on the reply and on the
channel's status (a failure as its `last_error`, until a reply goes out again), with the job's completion and the
next attempt's job, in one transaction.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels import buttons, generic, graph, render, slack, telegram
from botyard.channels.buttons import Button
from botyard.channels.calls import Callback, ProviderFailed, SlackApi, TelegramApi
from botyard.channels.email.replies import MailReplies
from botyard.channels.meta import META_TYPES
from botyard.channels.render import Reply, markdown_escaped
from botyard.channels.repository import ChannelRepository, ReplyRepository
from botyard.channels.service import open_secrets
from botyard.channels.sms import sending as sms_sending
from botyard.channels.sms.api import TwilioApi
from botyard.chat.service import messages_by_uuids
from botyard.chat.wire import citation_links, public_citations
from botyard.config import Settings
from botyard.db.base import new_uuid, utcnow
from botyard.egress import EgressClient
from botyard.errors import AppError, ErrorCode
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import ChannelSend
from botyard.jobs.service import enqueue
from botyard.models import Channel, ChannelReply, ChannelType, MessageKind, MessageMeta, ReplyState
from botyard.outbox import signing

RETRY_DELAYS: tuple[float, ...] = (1, 2, 4, 8, 15, 30, 30, 60, 60, 120, 300, 600)
"""The wait before each retry: 13 attempts over about 20 minutes, so a provider down for minutes still gets it."""
WAIT_FOR_EARLIER = timedelta(seconds=1)
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Plan:
    """What one attempt needs, read before sending (no transaction is open while the provider answers)."""

    reply: ChannelReply
    channel: Channel
    secrets: dict[str, str]
    canonical: Reply
    citations: list[dict[str, object]]
    waits: bool
    kind: MessageKind | None = None
    """The live-chat row's kind (an operator's reply, the start or end announcement); None for the bot's answer."""
    operator: str | None = None
    choices: tuple[str, ...] = ()
    """The choices that go with the answer (its message's `meta_json.choices`)."""


class ChannelSender:
    """Runs `channel_send` jobs (one attempt each)."""

    payload_type = ChannelSend
    timeout_seconds = 120.0

    def __init__(self, settings: Settings, egress: EgressClient, clock: Callable[[], datetime] = utcnow) -> None:
        self.settings = settings
        self.telegram = TelegramApi(egress, settings.telegram_api_url)
        self.slack = SlackApi(egress, settings.slack_api_url)
        self.callback = Callback(egress)
        self.sms = sms_sending.SmsSender(settings, TwilioApi(egress, settings.twilio_api_url), clock)
        self.meta = graph.MetaSender(settings, egress, clock)
        self.mail = MailReplies(settings)
        self.clock = clock

    async def run(self, ctx: JobContext[ChannelSend]) -> None:
        reply_uuid = ctx.payload.reply_uuid
        plan = await ctx.read(lambda db: _plan(db, self.settings, reply_uuid))
        if plan is None:
            await ctx.finish(_nothing)
            return
        if plan.waits:
            later = self.clock() + WAIT_FOR_EARLIER
            await ctx.finish(lambda db: _again(db, plan.reply, later))
            return
        try:
            await self._send(ctx, plan)
        except ProviderFailed as error:
            failed, now = error, self.clock()
            await ctx.finish(lambda db: _failed(db, plan.reply, failed, now))
            return
        now = self.clock()
        await ctx.finish(lambda db: _sent(db, plan.reply, now))

    async def _send(self, ctx: JobContext[ChannelSend], plan: Plan) -> None:
        reply = plan.reply
        if plan.channel.type in META_TYPES:
            by_operator = plan.kind is not None
            out = graph.Outgoing(reply, plan.channel, plan.secrets, plan.canonical, plan.choices, by_operator)
            await self.meta.send(out, ctx.read, ctx.write)
            return
        if plan.channel.type == ChannelType.EMAIL:
            await self.mail.send(ctx, reply, plan.channel, plan.secrets, plan.canonical, plan.choices)
            return
        if plan.channel.type == ChannelType.GENERIC:
            keys = buttons.shown(reply.uuid, plan.choices, buttons.GENERIC)
            text = (plan.canonical if keys else buttons.numbered(plan.canonical, plan.choices)).text
            event = generic.outbound(
                reply.uuid, reply.recipient, reply.thread, text, plan.citations, plan.kind, plan.operator, keys
            )
            await self._post(plan.secrets, reply.uuid, event)
            return
        if plan.channel.type == ChannelType.SMS:
            await self.sms.send(ctx, reply, plan.secrets, sms_sending.texts(plan.canonical, plan.choices))
            return
        pieces, shown = _pieces(plan.channel, plan.canonical, reply.uuid, plan.choices)
        for number in range(reply.parts_sent, len(pieces)):
            keys = shown if number == len(pieces) - 1 else []  # the buttons go with the reply's last part
            await self._piece(plan.channel, plan.secrets, reply.recipient, reply.thread, pieces[number], keys)
            await ctx.write(partial(_parts_sent, reply_uuid=reply.uuid, count=number + 1))

    async def send_now(self, channel: Channel, to: str, text: str) -> int:
        """One message to `to` (a Telegram chat id, a Slack channel, a generic user id) sent at once, every part, the
        way a reply is (the test message of the dashboard): how many parts went; `ProviderFailed` when one did not.
        Nothing is stored: the provider's answer is all there is to it."""
        secrets, canonical = open_secrets(self.settings, channel), Reply(text, {})
        if channel.type in META_TYPES:
            return await self.meta.send_now(channel, secrets, to, canonical)
        if channel.type == ChannelType.EMAIL:
            await self.mail.send_test(channel, secrets, to, canonical)
            return 1
        if channel.type == ChannelType.GENERIC:
            event_id = new_uuid()
            await self._post(secrets, event_id, generic.outbound(event_id, to, "", canonical.text, []))
            return 1
        if channel.type == ChannelType.SMS:
            return await self.sms.send_now(channel, secrets, to, sms_sending.texts(canonical, ()))
        pieces, _ = _pieces(channel, canonical, "", ())
        for piece in pieces:
            await self._piece(channel, secrets, to, to, piece, [])
        return len(pieces)

    async def _piece(
        self, channel: Channel, secrets: dict[str, str], recipient: str, thread: str, part: str, keys: list[Button]
    ) -> None:
        token = secrets.get("bot_token", "")
        if channel.type == ChannelType.SLACK:
            await self.slack.call(token, slack.post_message(thread, part, keys))
        else:
            await self._telegram_message(token, recipient, part, keys)

    async def _telegram_message(self, token: str, chat_id: str, part: str, keys: list[Button]) -> None:
        try:
            await self.telegram.call(token, telegram.send_message(chat_id, part, "", keys))
        except ProviderFailed as failed:
            if failed.refusal is None or not failed.refusal.bad_markup:
                raise
            plain = html.unescape(_TAG.sub("", part))  # never expected (`render`), but a reply is never lost to it
            await self.telegram.call(token, telegram.send_message(chat_id, None, plain, keys))

    async def _post(self, secrets: dict[str, str], event_id: str, event: dict[str, object]) -> None:
        body = json.dumps(event).encode()
        secret, url = secrets.get("signing_secret", ""), secrets.get("callback_url", "")
        headers = signing.headers(secret, event_id, int(self.clock().timestamp()), body)
        await self.callback.post(url, headers, body)

    async def give_up(self, session: AsyncSession, payload: ChannelSend, reason: str) -> None:
        """The attempt's job itself failed (not the provider): the reply fails with the reason."""
        reply = await ReplyRepository(session).get(payload.reply_uuid)
        if reply is not None and reply.state == ReplyState.PENDING:
            failed = ProviderFailed(reason, passing=False)
            await _failed(session, reply, failed, self.clock())


def _pieces(
    channel: Channel, canonical: Reply, reply_uuid: str, choices: Sequence[str]
) -> tuple[list[str], list[Button]]:
    """The reply rendered for Slack or Telegram, as messages within the channel's limits, and the buttons its last
    message carries: none when the channel cannot show its choices, which are numbered lines at its end then. A
    Slack message with buttons is a `section` block, whose text is shorter than a message's."""
    on_slack = channel.type == ChannelType.SLACK
    keys = buttons.shown(reply_uuid, choices, buttons.SLACK if on_slack else buttons.TELEGRAM)
    shown = canonical if keys else buttons.numbered(canonical, choices)
    if on_slack:
        limit = slack.MAX_SECTION_CHARS if keys else slack.MAX_MESSAGE_CHARS
        return render.parts(shown, limit, render.SLACK), keys
    return render.telegram_parts(shown, telegram.MAX_MESSAGE_CHARS), keys


async def _plan(db: AsyncSession, settings: Settings, reply_uuid: str) -> Plan | None:
    reply = await ReplyRepository(db).get(reply_uuid)
    if reply is None or reply.state != ReplyState.PENDING:
        return None
    channel = await ChannelRepository(db).get(reply.channel_uuid)
    if channel is None:
        return None
    text, links, citations = reply.text, {}, []
    kind: MessageKind | None = None
    operator: str | None = None
    choices: tuple[str, ...] = ()
    if reply.message_uuid is not None:
        message = (await messages_by_uuids(db, [reply.message_uuid])).get(reply.message_uuid)
        if message is None:
            return None  # the conversation was deleted meanwhile
        text, links = message.response or "", citation_links(message.cite_data or {})
        meta = MessageMeta.of(message)
        kind, operator = meta.kind, meta.operator_name
        if operator:  # an operator's live-chat reply goes out signed with their name
            text = f"**{markdown_escaped(operator)}:** {text}"
        citations = [{"marker": marker, **entry} for marker, entry in public_citations(message.cite_data or {}).items()]
        choices = tuple(meta.choices)
    waits = await ReplyRepository(db).waits_for_earlier(reply)
    secrets = open_secrets(settings, channel)
    return Plan(reply, channel, secrets, Reply(text, links), citations, waits, kind, operator, choices)


async def _parts_sent(db: AsyncSession, *, reply_uuid: str, count: int) -> None:
    await ReplyRepository(db).record(reply_uuid, {"parts_sent": count})


async def _again(db: AsyncSession, reply: ChannelReply, at: datetime) -> None:
    await enqueue(db, ChannelSend(reply.uuid), max_attempts=1, run_after=at)


async def _sent(db: AsyncSession, reply: ChannelReply, now: datetime) -> None:
    await ReplyRepository(db).record(reply.uuid, {"state": ReplyState.SENT, "sent_at": now, "last_error": ""})
    # The channel works again: its status no longer shows the error of an earlier attempt (it stays on that reply).
    await ChannelRepository(db).note(reply.channel_uuid, {"last_sent_at": now, "last_error": "", "last_error_at": None})


async def _failed(db: AsyncSession, reply: ChannelReply, failed: ProviderFailed, now: datetime) -> None:
    attempts = reply.attempts + 1
    retry = failed.passing and attempts <= len(RETRY_DELAYS)
    values: dict[str, object] = {"attempts": attempts, "last_error": failed.reason}
    if retry:
        delay = max(RETRY_DELAYS[attempts - 1], failed.retry_after or 0)
        await enqueue(db, ChannelSend(reply.uuid), max_attempts=1, run_after=now + timedelta(seconds=delay))
    else:
        values["state"] = ReplyState.FAILED
    await ReplyRepository(db).record(reply.uuid, values)
    await ChannelRepository(db).note(reply.channel_uuid, {"last_error": failed.reason, "last_error_at": now})


async def _nothing(db: AsyncSession) -> None:
    return None


TEST_TEXT = "This is a test message from Botyard: the channel **{name}** works."
_AT_FAULT = {
    ChannelType.TELEGRAM: "check the chat id (Telegram lets a bot write only to a chat that has written to it first)",
    ChannelType.SLACK: "check the channel id and that the bot is in that channel (invite it with /invite)",
    ChannelType.GENERIC: "check that the callback URL answers a signed POST with a 2xx",
    ChannelType.SMS: "check the number (E.164) and, on a trial account, that it is a verified caller ID",
    ChannelType.WHATSAPP: "check the number (in international form) and that it wrote to yours in the last 24 hours",
    ChannelType.MESSENGER: "check the page-scoped id and that the person wrote to the page in the last 24 hours",
    ChannelType.INSTAGRAM: "check the Instagram-scoped id and that the person wrote to you in the last 24 hours",
    ChannelType.EMAIL: "check the address, and the channel's SMTP server (or the service's BOTYARD_SMTP_*)",
}


async def send_test(sender: ChannelSender, channel: Channel, to: str, text: str | None) -> int:
    """The test message sent on the channel now, as replies are sent: how many messages it took; a refusal is
    422 `channel_send_failed` with the provider's reason and what to check."""
    message = text or TEST_TEXT.format(name=channel.name or channel.type)
    try:
        return await sender.send_now(channel, to, message)
    except ProviderFailed as failed:
        fault = _AT_FAULT[ChannelType(channel.type)]
        raise AppError(
            ErrorCode.CHANNEL_SEND_FAILED, f"The test message was not sent: {failed.reason}; {fault}."
        ) from None
