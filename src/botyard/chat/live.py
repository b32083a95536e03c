"""Human hand-off: sessions flagged for operators, live chat (an operator takes over, replies, hands back), and the
events an operator's client follows.

Session meta: `human_requested` (a person was asked for, by routing to the human-escalation agent or by a
`monitored_messages` phrase in an AI reply; cleared when a live chat ends), `live_chat` (an operator has the
session: no AI answers it). Transcript rows: announcements and operator replies are messages with an empty query
and `meta_json.kind` `live_chat_start`, `operator` or `live_chat_end`; a user's message during a live chat is a
message with an empty response and `meta_json.kind` `live_chat_user`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.rules import DEFAULT_HUMAN_ESCALATION_SETTINGS, HUMAN_ESCALATION
from botyard.chat.repository import MessageRepository
from botyard.chat.service import get_owned_session
from botyard.db.base import iso
from botyard.errors import AppError, ErrorCode
from botyard.models import Agent, ChatbotEvent, ChatSession, Message

HUMAN_REQUESTED = "human_requested"
USER_MESSAGE = "user_message"
LIVE_CHAT_STARTED = "live_chat_started"
OPERATOR_MESSAGE = "operator_message"
LIVE_CHAT_ENDED = "live_chat_ended"
TAGS_ASSIGNED = "tags_assigned"


def is_live(session: ChatSession) -> bool:
    return bool((session.meta or {}).get("live_chat"))


def is_flagged(session: ChatSession) -> bool:
    return bool((session.meta or {}).get("human_requested"))


async def record(db: AsyncSession, session: ChatSession, kind: str, now: datetime, **data: Any) -> None:
    """Append an event for the session's chatbot, in the caller's transaction."""
    db.add(
        ChatbotEvent(chatbot_uuid=session.chatbot_uuid, session_uuid=session.uuid, kind=kind, data=data, created_at=now)
    )


async def flag_for_operators(db: AsyncSession, session_uuid: str, now: datetime, reason: str) -> None:
    """Mark the session as asking for a person, once (the first time and reason are kept), and tell operators."""
    session = await db.get(ChatSession, session_uuid)
    if session is None or is_flagged(session):
        return
    session.meta = {**(session.meta or {}), "human_requested": True, "human_requested_at": iso(now)}
    await record(db, session, HUMAN_REQUESTED, now, reason=reason)


def monitored_phrase(reply: str, phrases: Sequence[str]) -> str | None:
    """The first of the escalation agent's `monitored_messages` found in an AI reply (case-insensitive)."""
    folded = reply.casefold()
    return next((phrase for phrase in phrases if phrase.strip() and phrase.casefold() in folded), None)


async def escalation_settings(db: AsyncSession, chatbot_uuid: str) -> dict[str, Any]:
    """The chatbot's human-escalation settings (its escalation agent's, over the defaults)."""
    statement = select(Agent.human_escalation_settings).where(
        Agent.chatbot_uuid == chatbot_uuid, Agent.type == HUMAN_ESCALATION
    )
    stored = (await db.execute(statement)).scalars().first()
    return DEFAULT_HUMAN_ESCALATION_SETTINGS | dict(stored or {})


async def _transcript_row(db: AsyncSession, session: ChatSession, text: str, kind: str, now: datetime) -> Message:
    message = Message(
        session_uuid=session.uuid, query="", response=text, meta={"kind": kind}, created_at=now, modified_at=now
    )
    return await MessageRepository(db).add(message)


async def start(db: AsyncSession, account_uuid: str, session_uuid: str, now: datetime) -> ChatSession:
    """An operator takes the session over: the start announcement goes into the transcript, the AI stops."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    if is_live(session):
        raise AppError(409, ErrorCode.LIVE_CHAT_ACTIVE, "An operator already has this session")
    settings = await escalation_settings(db, session.chatbot_uuid)
    row = await _transcript_row(db, session, str(settings["live_chat_start_announcement"]), "live_chat_start", now)
    session.meta = {**(session.meta or {}), "live_chat": True}
    await record(db, session, LIVE_CHAT_STARTED, now, message_uuid=row.uuid)
    return session


async def reply(db: AsyncSession, account_uuid: str, session_uuid: str, text: str, now: datetime) -> Message:
    """An operator's message to the user of a live session."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    if not is_live(session):
        raise AppError(409, ErrorCode.LIVE_CHAT_INACTIVE, "No operator has this session: start a live chat first")
    message = await _transcript_row(db, session, text, "operator", now)
    await record(db, session, OPERATOR_MESSAGE, now, message_uuid=message.uuid)
    return message


async def end(db: AsyncSession, account_uuid: str, session_uuid: str, now: datetime) -> ChatSession:
    """The operator hands the session back: the end announcement goes into the transcript, the AI answers again."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    if not is_live(session):
        raise AppError(409, ErrorCode.LIVE_CHAT_INACTIVE, "No operator has this session")
    settings = await escalation_settings(db, session.chatbot_uuid)
    row = await _transcript_row(db, session, str(settings["live_chat_end_announcement"]), "live_chat_end", now)
    session.meta = {**(session.meta or {}), "live_chat": False, "human_requested": False}
    await record(db, session, LIVE_CHAT_ENDED, now, message_uuid=row.uuid)
    return session


async def events_after(db: AsyncSession, chatbot_uuid: str, after: int, limit: int = 200) -> Sequence[ChatbotEvent]:
    statement = (
        select(ChatbotEvent)
        .where(ChatbotEvent.chatbot_uuid == chatbot_uuid, ChatbotEvent.id > after)
        .order_by(ChatbotEvent.id)
        .limit(limit)
    )
    return (await db.execute(statement)).scalars().all()


async def last_event_id(db: AsyncSession, chatbot_uuid: str) -> int:
    statement = (
        select(ChatbotEvent.id).where(ChatbotEvent.chatbot_uuid == chatbot_uuid).order_by(ChatbotEvent.id.desc())
    )
    return int((await db.execute(statement.limit(1))).scalar() or 0)


def event_to_wire(event: ChatbotEvent) -> dict[str, Any]:
    return {
        "id": event.id,
        "type": event.kind,
        "session_uuid": event.session_uuid,
        "created_at": iso(event.created_at),
        **event.data,
    }
