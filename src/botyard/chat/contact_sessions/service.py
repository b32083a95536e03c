"""A contact's sessions as `contacts` reads and changes them (the SQL is `repository.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.contact_sessions.repository import ContactSessionRepository
from botyard.models import Message

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
    for session, chatbot_name, channel_type, messages, preview in await ContactSessionRepository(db).lines(
        contact_uuids
    ):
        found[str(session.contact_uuid)].append(
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
                message_count=messages,
                preview=(preview or "")[:PREVIEW],
            )
        )
    return found


async def counts(db: AsyncSession, contact_uuids: Sequence[str]) -> dict[str, int]:
    """How many conversations each contact had."""
    return {uuid: 0 for uuid in contact_uuids} | await ContactSessionRepository(db).counts(contact_uuids)


async def channel_types(db: AsyncSession, contact_uuids: Sequence[str]) -> dict[str, list[str]]:
    """Where each contact wrote: the channels' types, and `widget` for a conversation on none (the widget or the
    API), each once, sorted."""
    found: dict[str, set[str]] = {uuid: set() for uuid in contact_uuids}
    for uuid, channel_type in await ContactSessionRepository(db).channel_types(contact_uuids):
        found[uuid].add(channel_type or WIDGET)
    return {uuid: sorted(types) for uuid, types in found.items()}


async def move(db: AsyncSession, from_contact: str, to_contact: str) -> None:
    """Every session of one contact becomes the other's (a merge)."""
    await ContactSessionRepository(db).move(from_contact, to_contact)


async def messages_of(db: AsyncSession, session_uuids: Sequence[str]) -> dict[str, list[Message]]:
    """The messages of those sessions, oldest first, by session (the export of a contact's data)."""
    found: dict[str, list[Message]] = {uuid: [] for uuid in session_uuids}
    for message in await ContactSessionRepository(db).messages(session_uuids):
        found[message.session_uuid].append(message)
    return found


@dataclass(frozen=True)
class SessionTrace:
    """Where a contact's conversation left records outside `chat/`: its channel and the customer's id there (what
    a channel's own tables keep of them)."""

    session_uuid: str
    channel_uuid: str | None
    channel_user: str


async def traces_of(db: AsyncSession, contact_uuid: str) -> list[SessionTrace]:
    """The contact's sessions as the erasure of other packages' records needs them."""
    return [SessionTrace(*row) for row in await ContactSessionRepository(db).traces(contact_uuid)]


async def delete_of(db: AsyncSession, contact_uuid: str) -> int:
    """Delete the contact's sessions, with their messages and everything else of theirs; how many there were."""
    return await ContactSessionRepository(db).remove_of(contact_uuid)
