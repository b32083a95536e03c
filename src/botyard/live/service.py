"""Human hand-off: sessions flagged for operators, live chat (an operator takes over, replies, hands back), and the
events an operator's client follows.

Session meta (`SessionMeta`): `human_requested` (a person was asked for, by routing to the human-escalation agent or
by a `monitored_messages` phrase in an AI reply; cleared when a live chat ends), `live_chat` (an operator has the
session: no AI answers it). Transcript rows: announcements and operator replies are messages with an empty query
and `meta_json.kind` `live_chat_start`, `operator` or `live_chat_end`; a user's message during a live chat is a
message with an empty response and `meta_json.kind` `live_chat_user` (`MessageKind`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.service import escalation_settings
from botyard.chat import session_state
from botyard.chat.conversation import set_outcome
from botyard.chat.service import add_transcript_row, get_owned_session, get_session
from botyard.db.base import iso
from botyard.errors import AppError, ErrorCode
from botyard.jobs.kinds import ChannelRelay
from botyard.jobs.service import enqueue
from botyard.live import channel_window
from botyard.live.notify import About, queue_mail
from botyard.live.repository import ChatbotEventRepository
from botyard.live.wakeup import announce
from botyard.models import (
    ChatbotEvent,
    ChatbotEventKind,
    ChatSession,
    ConversationOutcome,
    Message,
    MessageKind,
    OutcomeReason,
    SessionMeta,
    WebhookEvent,
)
from botyard.outbox import events as webhooks

WIDGET_EVENTS = (
    ChatbotEventKind.LIVE_CHAT_STARTED,
    ChatbotEventKind.OPERATOR_MESSAGE,
    ChatbotEventKind.LIVE_CHAT_ENDED,
)
"""What the widget hears of its session's live chat."""
WEBHOOK_EVENTS = frozenset(
    {
        ChatbotEventKind.HUMAN_REQUESTED,
        ChatbotEventKind.LIVE_CHAT_STARTED,
        ChatbotEventKind.LIVE_CHAT_ENDED,
        ChatbotEventKind.CONTACT_FORM_SENT,
    }
)
"""The events also sent to the chatbot's webhooks (the same names)."""


def is_live(session: ChatSession) -> bool:
    return SessionMeta.of(session).live_chat


def is_flagged(session: ChatSession) -> bool:
    return SessionMeta.of(session).human_requested


RELAYED = frozenset(WIDGET_EVENTS)
"""The live-chat rows a customer on a channel is sent, as a widget visitor sees them: the start and end
announcements, each operator reply."""


async def record(db: AsyncSession, session: ChatSession, kind: ChatbotEventKind, now: datetime, **data: Any) -> None:
    """Append an event for the session's chatbot, in the caller's transaction."""
    event = ChatbotEvent(
        chatbot_uuid=session.chatbot_uuid, session_uuid=session.uuid, kind=kind.value, data=data, created_at=now
    )
    await ChatbotEventRepository(db).add(event)
    await announce(db, event)
    if session.channel_uuid is not None and kind in RELAYED and isinstance(data.get("message_uuid"), str):
        # The customer is on a channel, not in the widget: the operator's words go out there (`channels.relay`).
        await enqueue(db, ChannelRelay(session.uuid, data["message_uuid"]), chatbot_uuid=session.chatbot_uuid)
    if kind in WEBHOOK_EVENTS:
        await webhooks.emit(
            db, session.chatbot_uuid, WebhookEvent(kind.value), {"session_uuid": session.uuid, **data}, now
        )


async def flag_for_operators(
    db: AsyncSession, session_uuid: str, now: datetime, reason: str, message_uuid: str | None = None
) -> bool:
    """Mark the session as asking for a person, once (the first time, reason and asking message are kept), and tell
    operators: by their event streams, and by email when the chatbot has notification addresses (`notify`). False
    when it was flagged already."""
    session = await get_session(db, session_uuid)
    if session is None or is_flagged(session):
        return False
    session_state.flag(session, now, message_uuid)
    await record(db, session, ChatbotEventKind.HUMAN_REQUESTED, now, reason=reason, message_uuid=message_uuid)
    await queue_mail(db, session, About.WAITING, message_uuid)
    return True


async def dismiss(db: AsyncSession, account_uuid: str, session_uuid: str, now: datetime) -> ChatSession:
    """An operator clears the session's request for a person without taking it over (the AI goes on answering).
    409 `live_chat_active` during a live chat (end it instead), `human_request_inactive` when nobody asked."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    if is_live(session):
        raise AppError(ErrorCode.LIVE_CHAT_ACTIVE, "An operator has this session: end the live chat instead")
    if not is_flagged(session):
        raise AppError(ErrorCode.HUMAN_REQUEST_INACTIVE, "This session is not waiting for a person")
    session_state.dismiss_request(session)
    await record(db, session, ChatbotEventKind.HUMAN_REQUEST_DISMISSED, now)
    return session


async def mark_seen(db: AsyncSession, account_uuid: str, session_uuid: str, now: datetime) -> ChatSession:
    """An operator opened the session: its messages so far are read, for every operator (an event tells them)."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    session_state.mark_seen(session, now)
    await record(db, session, ChatbotEventKind.CONVERSATION_SEEN, now)
    return session


def monitored_phrase(reply: str, phrases: Sequence[str]) -> str | None:
    """The first of the escalation agent's `monitored_messages` found in an AI reply (case-insensitive)."""
    folded = reply.casefold()
    return next((phrase for phrase in phrases if phrase.strip() and phrase.casefold() in folded), None)


async def start(
    db: AsyncSession, account_uuid: str, session_uuid: str, now: datetime, operator: str | None = None
) -> ChatSession:
    """An operator (`operator`: their name, None for an API key) takes the session over: the start announcement goes
    into the transcript, the AI stops."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    if is_live(session):
        raise AppError(ErrorCode.LIVE_CHAT_ACTIVE, "An operator already has this session")
    settings = await escalation_settings(db, session.chatbot_uuid)
    text = settings.live_chat_start_announcement
    row = await add_transcript_row(db, session, text, MessageKind.LIVE_CHAT_START, now, operator)
    asked = session.human_requested
    session_state.start_live_chat(session)
    await record(db, session, ChatbotEventKind.LIVE_CHAT_STARTED, now, message_uuid=row.uuid, **_signed(operator))
    why = OutcomeReason.VISITOR_ASKED if asked else OutcomeReason.OPERATOR
    await set_outcome(db, session.uuid, ConversationOutcome.HANDED_OFF, why)
    return session


async def reply(
    db: AsyncSession, account_uuid: str, session_uuid: str, text: str, now: datetime, operator: str | None = None
) -> Message:
    """An operator's message to the user of a live session, signed with their name (`operator`)."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    if not is_live(session):
        raise AppError(ErrorCode.LIVE_CHAT_INACTIVE, "No operator has this session: start a live chat first")
    await channel_window.check_reply(db, session, now)  # Meta's 24 hours: refused before anything is written
    message = await add_transcript_row(db, session, text, MessageKind.OPERATOR, now, operator)
    await record(db, session, ChatbotEventKind.OPERATOR_MESSAGE, now, message_uuid=message.uuid, **_signed(operator))
    return message


def _signed(operator: str | None) -> dict[str, str]:
    """An event's `operator_name`, when a person (not an API key) acted."""
    return {"operator_name": operator} if operator else {}


async def end(db: AsyncSession, account_uuid: str, session_uuid: str, now: datetime) -> ChatSession:
    """The operator hands the session back: the end announcement goes into the transcript, the AI answers again."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    if not is_live(session):
        raise AppError(ErrorCode.LIVE_CHAT_INACTIVE, "No operator has this session")
    settings = await escalation_settings(db, session.chatbot_uuid)
    text = settings.live_chat_end_announcement
    row = await add_transcript_row(db, session, text, MessageKind.LIVE_CHAT_END, now)
    session_state.end_live_chat(session)
    await record(db, session, ChatbotEventKind.LIVE_CHAT_ENDED, now, message_uuid=row.uuid)
    return session


async def events_after(db: AsyncSession, chatbot_uuid: str, after: int) -> Sequence[ChatbotEvent]:
    """The chatbot's events after the id `after`, oldest first."""
    return await ChatbotEventRepository(db).of_chatbot_after(chatbot_uuid, after)


async def last_event_id(db: AsyncSession, chatbot_uuid: str) -> int:
    return await ChatbotEventRepository(db).last_id_of_chatbot(chatbot_uuid)


async def session_events_after(db: AsyncSession, session_uuid: str, after: int) -> Sequence[ChatbotEvent]:
    """The session's live-chat events the widget shows (`WIDGET_EVENTS`) after the id `after`, oldest first."""
    return await ChatbotEventRepository(db).of_session_after(session_uuid, WIDGET_EVENTS, after)


async def last_session_event_id(db: AsyncSession, session_uuid: str) -> int:
    return await ChatbotEventRepository(db).last_id_of_session(session_uuid)


def event_to_wire(event: ChatbotEvent) -> dict[str, Any]:
    return {
        "id": event.id,
        "type": event.kind,
        "session_uuid": event.session_uuid,
        "created_at": iso(event.created_at),
        **event.data,
    }
