"""The `channel_answer` job: a channel conversation's messages answered, once its burst is over, through the one
answer pipeline (agents, routing, variables, tool functions, honest confidence, review items: as in the widget).

Each stored message queues this job due `burst_seconds` after it arrived. When one runs (for a Telegram button
pressed, after answering the press with `answerCallbackQuery`, once per press: a repeated update stores nothing):

1. Its event is already answered (a repeat of the job): nothing to do.
2. A message of its burst (the conversation's pending messages, each less than `burst_seconds` after the one
   before) arrived after it: that one's job, due later, answers the burst; nothing to do.
3. Otherwise its burst's messages, in the provider's order, are joined into one question and asked
   in the chat session of (channel, user, thread): the one active within `session_idle_hours`, or a new one.
   A question that is only the number of one of the choices of the conversation's last reply asks that choice
   (a channel that showed them as numbered lines, `buttons`). Meanwhile the channel shows that an answer is being
   made (`channels.indicator`).
4. The events are settled and the reply is queued to send (`channel_send`), in one transaction. Over the chatbot's
   rate limit, the reply is its `rate_limit_message`; while an operator has the conversation, the bot says nothing.

A crash between 3 and 4 asks the burst again when the job is retried: at least once, never lost.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.answering.pipeline import Pipeline
from botyard.answering.turn.records import Ask
from botyard.answering.wire import collect
from botyard.channels import telegram
from botyard.channels.calls import Callback, ProviderFailed, SlackApi, TelegramApi
from botyard.channels.graph import MetaSender
from botyard.channels.indicator import Indicators, shown
from botyard.channels.repository import ChannelRepository, EventRepository, ReplyRepository
from botyard.channels.schemas import ChannelSettings
from botyard.channels.service import open_secrets
from botyard.chat import ratelimit
from botyard.chat.service import channel_session, messages_by_uuids
from botyard.chatbots.service import by_uuid as chatbot_by_uuid
from botyard.config import Settings
from botyard.contacts import service as contacts
from botyard.db.base import utcnow
from botyard.egress import EgressClient
from botyard.errors import AppError, ErrorCode
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import ChannelAnswer, ChannelSend
from botyard.jobs.service import enqueue
from botyard.models import (
    Channel,
    ChannelEvent,
    ChannelEventState,
    ChannelReply,
    ChannelType,
    MessageMeta,
    SessionMeta,
)


@dataclass(frozen=True)
class Burst:
    """What one answer asks: the conversation's pending messages, read in one transaction."""

    channel: Channel
    events: list[ChannelEvent]
    account_uuid: str
    session_uuid: str
    live: bool
    """An operator has the conversation (live chat)."""
    question: str
    """The messages joined, or the choice their number names."""

    @property
    def last(self) -> ChannelEvent:
        return self.events[-1]


@dataclass(frozen=True)
class Answered:
    message_uuid: str | None
    text: str = ""


class ChannelAnswerer:
    """Runs `channel_answer` jobs."""

    payload_type = ChannelAnswer
    timeout_seconds = 300.0

    def __init__(self, answers: Pipeline, settings: Settings, egress: EgressClient) -> None:
        self.answers = answers
        self.settings = settings
        self.telegram = TelegramApi(egress, settings.telegram_api_url)
        self.indicators = Indicators(
            TelegramApi(egress, settings.telegram_api_url),
            SlackApi(egress, settings.slack_api_url),
            Callback(egress),
            utcnow,
            MetaSender(settings, egress, utcnow),
        )

    async def run(self, ctx: JobContext[ChannelAnswer]) -> None:
        event_uuid = ctx.payload.event_uuid
        if ctx.payload.callback_query_id:
            channel = await ctx.read(lambda db: _channel_of(db, event_uuid))
            await self._answer_press(channel, ctx.payload.callback_query_id)
        burst = await ctx.write(lambda db: _burst(db, event_uuid))
        if burst is None:
            await ctx.finish(_nothing)
            return
        show, every = (None, None)
        if not burst.live:  # while an operator has the conversation the bot is silent: nothing is being made
            show, every = self.indicators.of(burst.channel, open_secrets(self.settings, burst.channel), burst.last)
        async with shown(show, every):
            answered = await self._ask(burst)
        await ctx.finish(lambda db: _settled(db, burst, answered))

    async def _ask(self, burst: Burst) -> Answered:
        visitor = ratelimit.Visitor(f"channel:{burst.channel.uuid}", 0)
        ask = Ask(
            session_uuid=burst.session_uuid, query=burst.question, account_uuid=burst.account_uuid, visitor=visitor
        )
        try:
            run = await self.answers.begin(ask, events=False)
        except AppError as error:
            if error.code != ErrorCode.RATE_LIMITED:
                raise
            return Answered(None, error.message)  # the chatbot's rate_limit_message, said on the channel
        text = await collect(run)
        if run.prepared.live_chat or not text:
            return Answered(None)  # an operator has the conversation: the bot says nothing
        return Answered(run.prepared.message_uuid)

    async def _answer_press(self, channel: Channel | None, callback_query_id: str) -> None:
        """Telegram's button press answered, so that it stops showing as waiting; a failure only leaves it waiting
        until Telegram gives up on it."""
        token = open_secrets(self.settings, channel).get("bot_token") if channel is not None else None
        if token:
            with contextlib.suppress(ProviderFailed):
                await self.telegram.call(token, telegram.answer_callback(callback_query_id))

    async def give_up(self, session: AsyncSession, payload: ChannelAnswer, reason: str) -> None:
        event = await EventRepository(session).get(payload.event_uuid)
        if event is not None:
            await ChannelRepository(session).note(event.channel_uuid, {"last_error": f"answer failed: {reason}"})


async def _channel_of(db: AsyncSession, event_uuid: str) -> Channel | None:
    event = await EventRepository(db).get(event_uuid)
    return None if event is None else await ChannelRepository(db).get(event.channel_uuid)


async def _burst(db: AsyncSession, event_uuid: str) -> Burst | None:
    event = await EventRepository(db).get(event_uuid)
    if event is None or event.state != ChannelEventState.PENDING:
        return None
    channel = await ChannelRepository(db).get(event.channel_uuid)
    chatbot = None if channel is None else await chatbot_by_uuid(db, channel.chatbot_uuid)
    if channel is None or chatbot is None:
        return None
    settings = ChannelSettings.model_validate(channel.settings)
    pending = await EventRepository(db).pending(channel.uuid, event.conversation)
    burst = burst_of(event, pending, timedelta(seconds=settings.burst_seconds))
    if not burst:
        return None  # a later message of its burst answers it
    idle = timedelta(hours=settings.session_idle_hours)
    user = (event.user_id, event.user_name)
    session = await channel_session(db, chatbot.uuid, channel.uuid, user, event.thread, idle, event.received_at)
    await contacts.recognise_on_channel(db, chatbot.account_uuid, session, channel, user, event.received_at)
    question = await _picked(db, channel.uuid, event.conversation, "\n".join(other.text for other in burst))
    live = SessionMeta.of(session).live_chat
    return Burst(channel, burst, chatbot.account_uuid, session.uuid, live, question)


async def _picked(db: AsyncSession, channel_uuid: str, conversation: str, question: str) -> str:
    """The choice a question names by its number ("2", as the numbered lines of the last reply show it), else the
    question as it was written."""
    number = question.strip().rstrip(".")
    if not (number.isascii() and number.isdigit()) or len(number) > 2:
        return question
    message_uuid = await ReplyRepository(db).latest_answer(channel_uuid, conversation)
    message = None if message_uuid is None else (await messages_by_uuids(db, [message_uuid])).get(message_uuid)
    choices = MessageMeta.of(message).choices if message is not None else []
    return choices[int(number) - 1] if 1 <= int(number) <= len(choices) else question


def burst_of(event: ChannelEvent, pending: Sequence[ChannelEvent], quiet: timedelta) -> list[ChannelEvent]:
    """The messages `event`'s job answers, in the provider's order: its burst (pending messages that arrived less
    than `quiet` after the one before), if `event` arrived last in it; else none (the last one's job answers)."""
    arrived = sorted(pending, key=lambda other: (other.received_at, other.uuid))
    bursts: list[list[ChannelEvent]] = []
    for other in arrived:
        if bursts and other.received_at - bursts[-1][-1].received_at < quiet:
            bursts[-1].append(other)
        else:
            bursts.append([other])
    mine = next((burst for burst in bursts if any(other.uuid == event.uuid for other in burst)), [])
    if not mine or mine[-1].uuid != event.uuid:
        return []
    return sorted(mine, key=lambda other: (other.position, other.received_at))


async def _settled(db: AsyncSession, burst: Burst, answered: Answered) -> None:
    events = EventRepository(db)
    await events.settle([event.uuid for event in burst.events], ChannelEventState.ANSWERED)
    if answered.message_uuid is None and not answered.text:
        return
    replies = ReplyRepository(db)
    last = burst.last
    reply = ChannelReply(
        channel_uuid=burst.channel.uuid,
        conversation=last.conversation,
        sequence=await replies.next_sequence(burst.channel.uuid, last.conversation),
        session_uuid=burst.session_uuid,
        message_uuid=answered.message_uuid,
        text=answered.text,
        recipient=last.thread if burst.channel.type == ChannelType.TELEGRAM else last.user_id,
        thread=last.thread,
    )
    await replies.add(reply)
    await enqueue(db, ChannelSend(reply.uuid), chatbot_uuid=burst.channel.chatbot_uuid, max_attempts=1)


async def _nothing(db: AsyncSession) -> None:
    return None
