"""Session and message rules: ownership through the chatbot, session meta, time filters, deletes, and the messages
as the API shows them (with their session's tags and pending background jobs; the shape is `chat.wire`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.conversation import add_message
from botyard.chat.feedback.service import feedback_of
from botyard.chat.repository import ChatSessionRepository, MessageRepository, SessionFilter
from botyard.chat.schemas import Message as MessageOut
from botyard.chat.schemas import Session as SessionOut
from botyard.chat.schemas import SessionCreate, SessionSummary
from botyard.chat.wire import MessageContext, message_to_wire
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.errors import not_found, unknown_uuids
from botyard.jobs.service import pending_by_message
from botyard.models import Chatbot, ChatSession, Message, MessageKind, MessageMeta, SessionMeta
from botyard.session_documents import service as session_documents

INVALID_MESSAGE = "invalid message"
_UUID = re.compile(r"^[0-9a-f]{32}$")


def new_session_meta(initial_variables: dict[str, Any] | None) -> dict[str, Any]:
    """A new session's meta (see `SessionMeta.new`)."""
    return SessionMeta.new(initial_variables).dump()


async def create_session(db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: SessionCreate) -> ChatSession:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    meta = new_session_meta(body.given().get("initial_variables"))
    return await ChatSessionRepository(db).add(ChatSession(chatbot_uuid=chatbot.uuid, meta=meta))


async def open_session(db: AsyncSession, chatbot_uuid: str, now: datetime) -> ChatSession:
    """A new session of the chatbot with no initial variables (the caller has decided who may open it)."""
    session = ChatSession(chatbot_uuid=chatbot_uuid, meta=new_session_meta(None), created_at=now, modified_at=now)
    return await ChatSessionRepository(db).add(session)


async def channel_session(
    db: AsyncSession,
    chatbot_uuid: str,
    channel_uuid: str,
    user: tuple[str, str],
    thread: str,
    idle: timedelta,
    now: datetime,
) -> ChatSession:
    """The chat session of an external user (`user`: id and display name) in a channel's thread: the one still
    active (a message less than `idle` ago), else a new one that records its channel, user and thread."""
    user_id, user_name = user
    found = await ChatSessionRepository(db).on_channel(channel_uuid, user_id, thread, now - idle)
    if found is not None:
        return found
    session = ChatSession(
        chatbot_uuid=chatbot_uuid,
        meta=new_session_meta(None),
        channel_uuid=channel_uuid,
        channel_user=user_id,
        channel_user_name=user_name,
        channel_thread=thread,
        created_at=now,
        modified_at=now,
    )
    return await ChatSessionRepository(db).add(session)


async def get_session(db: AsyncSession, session_uuid: str) -> ChatSession | None:
    """The session, whoever owns it (the caller has decided who may see it)."""
    return await ChatSessionRepository(db).get(session_uuid)


async def session_with_chatbot(db: AsyncSession, session_uuid: str) -> tuple[ChatSession, Chatbot] | None:
    """The session and its chatbot, whoever owns them (the caller decides who may use them)."""
    return await ChatSessionRepository(db).with_chatbot(session_uuid)


async def session_messages(db: AsyncSession, session_uuid: str) -> Sequence[Message]:
    """The session's messages, oldest first (the caller has decided who may see them)."""
    return await MessageRepository(db).of_session(session_uuid)


async def messages_by_uuids(db: AsyncSession, uuids: Sequence[str]) -> dict[str, Message]:
    """The messages among `uuids` that exist, by uuid (the caller has decided who may see them)."""
    return {message.uuid: message for message in await MessageRepository(db).by_uuids(uuids)}


async def messages_of_chatbot(db: AsyncSession, chatbot_uuid: str, uuids: Sequence[str]) -> dict[str, Message]:
    """The messages among `uuids` that belong to a session of the chatbot, by uuid (the caller owns the chatbot)."""
    return {message.uuid: message for message in await MessageRepository(db).of_chatbot_among(chatbot_uuid, uuids)}


async def operator_replies(db: AsyncSession, session_uuids: Sequence[str]) -> dict[str, list[Message]]:
    """The operators' replies in those sessions, oldest first, by session (the caller has decided who may see them)."""
    found: dict[str, list[Message]] = {}
    for message in await MessageRepository(db).transcript_rows(session_uuids):
        if MessageMeta.of(message).kind is MessageKind.OPERATOR:
            found.setdefault(message.session_uuid, []).append(message)
    return found


async def outcome_counts(db: AsyncSession, since: datetime) -> dict[str, int]:
    """Conversations of every chatbot started since `since`, by outcome (`none`: nothing asked yet)."""
    return await ChatSessionRepository(db).outcome_counts(since)


async def add_transcript_row(
    db: AsyncSession, session: ChatSession, text: str, kind: MessageKind, now: datetime, operator: str | None = None
) -> Message:
    """A live-chat row of the session's transcript: an announcement or an operator's reply (empty query), signed by
    the `operator`'s name when a person wrote it; the session's last activity moves to `now`."""
    message = Message(
        session_uuid=session.uuid,
        query="",
        response=text,
        meta=MessageMeta.transcript_row(kind, operator).dump(),
        created_at=now,
        modified_at=now,
    )
    added = await MessageRepository(db).add(message)
    await ChatSessionRepository(db).touch(session.uuid, now)
    return added


async def add_visitor_row(
    db: AsyncSession, session: ChatSession, text: str, kind: MessageKind, now: datetime, **meta: str
) -> Message:
    """A visitor's row outside an answered exchange (a message left through the after-hours form): the text as the
    query, an empty response, `meta` beside the kind; the conversation's last activity moves to `now`, and it is
    open again (`conversation.add_message`)."""
    message = Message(
        session_uuid=session.uuid,
        query=text,
        response="",
        meta={**MessageMeta.transcript_row(kind).dump(), **meta},
        created_at=now,
        modified_at=now,
    )
    return await add_message(db, message)


async def get_owned_session(db: AsyncSession, account_uuid: str, session_uuid: str) -> ChatSession:
    """The account's session, or the 404 a missing session gets (another account's session answers the same)."""
    return await ChatSessionRepository(db).get_owned(account_uuid, session_uuid)


async def list_sessions(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, only: SessionFilter | None = None
) -> Sequence[ChatSession]:
    """The account's chatbot's sessions that pass the filter (`chat.filters`), oldest first."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return await ChatSessionRepository(db).of_chatbot(chatbot.uuid, only)


async def delete_session(db: AsyncSession, account_uuid: str, session_uuid: str) -> None:
    session = await get_owned_session(db, account_uuid, session_uuid)
    await ChatSessionRepository(db).remove(session.uuid)


async def list_messages(db: AsyncSession, account_uuid: str, session_uuid: str) -> Sequence[Message]:
    session = await get_owned_session(db, account_uuid, session_uuid)
    return await MessageRepository(db).of_session(session.uuid)


async def list_messages_on_wire(db: AsyncSession, account_uuid: str, session_uuid: str) -> list[MessageOut]:
    """The account's session's messages, oldest first, with exactly the hosted keys."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    return await messages_to_wire(db, session, await MessageRepository(db).of_session(session.uuid))


async def _owned_messages(db: AsyncSession, account_uuid: str, uuids: Sequence[str]) -> dict[str, Message]:
    wellformed = [uuid for uuid in dict.fromkeys(uuids) if _UUID.match(uuid)]
    return {message.uuid: message for message in await MessageRepository(db).owned_among(account_uuid, wellformed)}


async def get_owned_message(db: AsyncSession, account_uuid: str, message_uuid: str) -> Message:
    """The account's message, or the 404 a missing message gets (another account's message answers the same)."""
    found = await _owned_messages(db, account_uuid, [message_uuid])
    if message_uuid not in found:
        raise not_found("Message")
    return found[message_uuid]


async def messages_to_wire(db: AsyncSession, session: ChatSession, messages: Sequence[Message]) -> list[MessageOut]:
    """The session's `messages` with exactly the hosted keys: each labelled with the session's tags (the background
    agents tag the conversation, not one message), counting the background jobs still pending for it, with the end
    user's feedback on it and the session documents it used."""
    uuids = [message.uuid for message in messages]
    pending = await pending_by_message(db, uuids)
    feedback = await feedback_of(db, uuids)
    used = await session_documents.used_by(db, uuids)
    tags = SessionMeta.of(session).tags
    return [
        message_to_wire(
            message,
            MessageContext(
                tags,
                pending.get(message.uuid, 0),
                feedback.get(message.uuid),
                [{"uuid": uuid, "name": name} for uuid, name in used.get(message.uuid, [])],
            ),
        )
        for message in messages
    ]


async def message_on_wire(db: AsyncSession, message: Message) -> MessageOut:
    """One message with exactly the hosted keys (see `messages_to_wire`)."""
    session = await ChatSessionRepository(db).get(message.session_uuid)
    if session is None:  # deleted meanwhile: the message went with it
        raise not_found("Message")
    [shown] = await messages_to_wire(db, session, [message])
    return shown


async def latest_on_wire(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, limit: int
) -> list[tuple[str, MessageOut]]:
    """The account's chatbot's latest answered messages, newest first, each with its session's uuid and the hosted
    keys (what Zapier's and Make's polling triggers list)."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    messages = await MessageRepository(db).latest_of_chatbot(chatbot.uuid, limit)
    return [(message.session_uuid, await message_on_wire(db, message)) for message in messages]


async def delete_message(db: AsyncSession, account_uuid: str, message_uuid: str) -> None:
    if not await _owned_messages(db, account_uuid, [message_uuid]):
        raise not_found("Message")
    await MessageRepository(db).remove([message_uuid])


async def delete_messages(db: AsyncSession, account_uuid: str, uuids: Sequence[str]) -> None:
    """All or nothing: when any uuid is not one of the account's messages, nothing is deleted and each bad uuid is
    reported (a foreign uuid exactly like an unknown one)."""
    owned = await _owned_messages(db, account_uuid, uuids)
    bad = [uuid for uuid in dict.fromkeys(uuids) if uuid not in owned]
    if bad:
        raise unknown_uuids(bad, noun="messages", reason=INVALID_MESSAGE)
    await MessageRepository(db).remove(list(owned))


def session_summary(session: ChatSession) -> SessionSummary:
    return {"uuid": session.uuid, "created_at": iso(session.created_at), "modified_at": iso(session.modified_at)}


def session_to_wire(session: ChatSession) -> SessionOut:
    return {
        "uuid": session.uuid,
        "created_at": iso(session.created_at),
        "modified_at": iso(session.modified_at),
        "meta": SessionMeta.of(session).dump(),
    }
