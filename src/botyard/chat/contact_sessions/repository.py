"""The SQL of a contact's sessions: each with its chatbot's name, its channel's type, its message count and its last
message; their counts and channels by contact; moving and deleting them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.batches import batches
from botyard.models import Channel, Chatbot, ChatSession, Message

SessionLine = tuple[ChatSession, str, str | None, int, str | None]
"""A session, its chatbot's name, its channel's type (None: no channel), its message count, its last message."""


class ContactSessionRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def lines(self, contact_uuids: Sequence[str]) -> list[SessionLine]:
        """The sessions of those contacts, latest activity first, each as a line (`SessionLine`)."""
        if not contact_uuids:
            return []
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
        rows: Any = await self.session.execute(statement)
        return [(session, name, kind, int(n or 0), text) for session, name, kind, n, text in rows]

    async def counts(self, contact_uuids: Sequence[str]) -> dict[str, int]:
        """How many sessions each of those contacts has (those with none left out)."""
        if not contact_uuids:
            return {}
        statement = (
            select(ChatSession.contact_uuid, func.count())
            .where(ChatSession.contact_uuid.in_(list(contact_uuids)))
            .group_by(ChatSession.contact_uuid)
        )
        return {str(uuid): int(n) for uuid, n in await self.session.execute(statement)}

    async def channel_types(self, contact_uuids: Sequence[str]) -> list[tuple[str, str | None]]:
        """Each (contact, channel type) their sessions have, once (None: no channel)."""
        if not contact_uuids:
            return []
        statement = (
            select(ChatSession.contact_uuid, Channel.type)
            .outerjoin(Channel, Channel.uuid == ChatSession.channel_uuid)
            .where(ChatSession.contact_uuid.in_(list(contact_uuids)))
            .distinct()
        )
        return [(str(uuid), kind) for uuid, kind in await self.session.execute(statement)]

    async def move(self, from_contact: str, to_contact: str) -> None:
        await self.session.execute(
            update(ChatSession)
            .where(ChatSession.contact_uuid == from_contact)
            .values(contact_uuid=to_contact)
            .execution_options(synchronize_session=False)
        )

    async def messages(self, session_uuids: Sequence[str]) -> list[Message]:
        """The messages of those sessions, oldest first within each."""
        found: list[Message] = []
        for batch in batches(list(session_uuids)):
            statement = select(Message).where(Message.session_uuid.in_(batch))
            found += (await self.session.execute(statement.order_by(Message.created_at, Message.uuid))).scalars()
        return found

    async def traces(self, contact_uuid: str) -> list[tuple[str, str | None, str]]:
        """Each of the contact's sessions: its uuid, its channel and the customer's id there."""
        statement = select(ChatSession.uuid, ChatSession.channel_uuid, ChatSession.channel_user).where(
            ChatSession.contact_uuid == contact_uuid
        )
        return [(uuid, channel, user) for uuid, channel, user in await self.session.execute(statement)]

    async def remove_of(self, contact_uuid: str) -> int:
        """Delete the contact's sessions (their messages and the rest go through ON DELETE CASCADE); how many."""
        statement = select(ChatSession.uuid).where(ChatSession.contact_uuid == contact_uuid)
        uuids = list((await self.session.execute(statement)).scalars())
        for batch in batches(uuids):
            await self.session.execute(delete(ChatSession).where(ChatSession.uuid.in_(batch)))
        return len(uuids)
