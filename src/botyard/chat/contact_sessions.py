"""What `contacts` reads and changes of a contact's sessions: their list with what the team sees of each, moving them
to another contact (a merge), deleting them with their messages (the right to erasure). `chat_session` and `message`
are this package's tables, so `contacts` goes through these."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Channel, Chatbot, ChatSession, Message

WIDGET = "widget"
"""A conversation on no channel (the widget or the API), as `channel_types` names it."""
PREVIEW = 140
"""How much of a conversation's last message its line shows."""


@dataclass(frozen=True)
class ContactConversation:
    """One conversation of a contact, as a line of the contact's page."""

    session_uuid: str
    chatbot_uuid: str
    chatbot_name: str
    channel_uuid: str | None
    channel_type: str | None
    """The channel's type (`ChannelType`); None on the widget or the API."""
    created_at: datetime
    modified_at: datetime
    status: str
    visitor_page: str
    message_count: int
    preview: str
    """The start of its last message: the customer's words, else the reply."""


async def of_contacts(db: AsyncSession, contact_uuids: Sequence[str]) -> dict[str, list[ContactConversation]]:
    """Each contact's conversations on any channel and chatbot, latest activity first."""
    found: dict[str, list[ContactConversation]] = {uuid: [] for uuid in contact_uuids}
    if not contact_uuids:
        return found
    count = select(func.count()).where(Message.session_uuid == ChatSession.uuid).scalar_subquery()
    last = (
        select(func.coalesce(func.nullif(Message.query, ""), Message.response))
        .where(Message.session_uuid == ChatSession.uuid)
        .order_by(Message.created_at.desc(), Message.uuid.desc())
        .limit(1)
        .scalar_subquery()
    )
    statement = (
        select(ChatSession, Chatbot.name, Channel.type, count, last)
        .join(Chatbot, Chatbot.uuid == ChatSession.chatbot_uuid)
        .outerjoin(Channel, Channel.uuid == ChatSession.channel_uuid)
        .where(ChatSession.contact_uuid.in_(list(contact_uuids)))
        .order_by(ChatSession.modified_at.desc(), ChatSession.uuid)
    )
    for session, chatbot_name, channel_type, messages, preview in await db.execute(statement):
        found[session.contact_uuid].append(
            ContactConversation(
                session_uuid=session.uuid,
                chatbot_uuid=session.chatbot_uuid,
                chatbot_name=chatbot_name,
                channel_uuid=session.channel_uuid,
                channel_type=channel_type,
                created_at=session.created_at,
                modified_at=session.modified_at,
                status=session.status,
                visitor_page=session.visitor_page,
                message_count=int(messages or 0),
                preview=(preview or "")[:PREVIEW],
            )
        )
    return found


async def counts(db: AsyncSession, contact_uuids: Sequence[str]) -> dict[str, int]:
    """How many conversations each contact had."""
    if not contact_uuids:
        return {}
    statement = (
        select(ChatSession.contact_uuid, func.count())
        .where(ChatSession.contact_uuid.in_(list(contact_uuids)))
        .group_by(ChatSession.contact_uuid)
    )
    found = {uuid: 0 for uuid in contact_uuids}
    found.update({str(uuid): int(n) for uuid, n in await db.execute(statement)})
    return found


async def channel_types(db: AsyncSession, contact_uuids: Sequence[str]) -> dict[str, list[str]]:
    """Where each contact wrote: the channels' types, and `widget` for a conversation on none (the widget or the
    API), each once."""
    if not contact_uuids:
        return {}
    statement = (
        select(ChatSession.contact_uuid, Channel.type)
        .outerjoin(Channel, Channel.uuid == ChatSession.channel_uuid)
        .where(ChatSession.contact_uuid.in_(list(contact_uuids)))
        .distinct()
    )
    found: dict[str, list[str]] = {uuid: [] for uuid in contact_uuids}
    for uuid, channel_type in await db.execute(statement):
        found[str(uuid)].append(channel_type or WIDGET)
    return {uuid: sorted(set(types)) for uuid, types in found.items()}


async def move(db: AsyncSession, from_contact: str, to_contact: str) -> None:
    """Every session of one contact becomes the other's (a merge)."""
    await db.execute(
        update(ChatSession)
        .where(ChatSession.contact_uuid == from_contact)
        .values(contact_uuid=to_contact)
        .execution_options(synchronize_session=False)
    )


async def messages_of(db: AsyncSession, session_uuids: Sequence[str]) -> dict[str, list[Message]]:
    """The messages of those sessions, oldest first, by session (the export of a contact's data)."""
    found: dict[str, list[Message]] = {uuid: [] for uuid in session_uuids}
    if not session_uuids:
        return found
    statement = select(Message).where(Message.session_uuid.in_(list(session_uuids)))
    for message in (await db.execute(statement.order_by(Message.created_at, Message.uuid))).scalars():
        found[message.session_uuid].append(message)
    return found


async def delete_of(db: AsyncSession, contact_uuid: str) -> int:
    """Delete the contact's sessions, with their messages and everything else of theirs (ON DELETE CASCADE); how
    many there were."""
    uuids = list((await db.execute(select(ChatSession.uuid).where(ChatSession.contact_uuid == contact_uuid))).scalars())
    if uuids:
        await db.execute(delete(ChatSession).where(ChatSession.uuid.in_(uuids)))
    return len(uuids)
