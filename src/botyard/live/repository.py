"""The operators' events: appended in the transaction of what they report, read in id order; and what live chat
reads of a channel conversation for Meta's 24-hour window."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.repository import Repository
from botyard.models import Channel, ChatbotEvent, Message


class ChatbotEventRepository(Repository[ChatbotEvent]):
    model = ChatbotEvent

    async def of_chatbot_after(self, chatbot_uuid: str, after: int, limit: int = 200) -> Sequence[ChatbotEvent]:
        """The chatbot's events after the id `after`, oldest first."""
        statement = (
            select(ChatbotEvent)
            .where(ChatbotEvent.chatbot_uuid == chatbot_uuid, ChatbotEvent.id > after)
            .order_by(ChatbotEvent.id)
            .limit(limit)
        )
        return await self.all(statement)

    async def of_session_after(
        self, session_uuid: str, kinds: Sequence[str], after: int, limit: int = 100
    ) -> Sequence[ChatbotEvent]:
        """The session's events of the given kinds after the id `after`, oldest first."""
        statement = (
            select(ChatbotEvent)
            .where(ChatbotEvent.session_uuid == session_uuid, ChatbotEvent.id > after, ChatbotEvent.kind.in_(kinds))
            .order_by(ChatbotEvent.id)
            .limit(limit)
        )
        return await self.all(statement)

    async def last_of_session(self, session_uuid: str, kinds: Sequence[str]) -> ChatbotEvent | None:
        """The session's latest event of the given kinds."""
        statement = (
            select(ChatbotEvent)
            .where(ChatbotEvent.session_uuid == session_uuid, ChatbotEvent.kind.in_(kinds))
            .order_by(ChatbotEvent.id.desc())
            .limit(1)
        )
        return await self.one_or_none(statement)

    async def last_id_of_chatbot(self, chatbot_uuid: str) -> int:
        statement = select(ChatbotEvent.id).where(ChatbotEvent.chatbot_uuid == chatbot_uuid)
        return int((await self.session.execute(statement.order_by(ChatbotEvent.id.desc()).limit(1))).scalar() or 0)

    async def last_id_of_session(self, session_uuid: str) -> int:
        statement = select(ChatbotEvent.id).where(ChatbotEvent.session_uuid == session_uuid)
        return int((await self.session.execute(statement.order_by(ChatbotEvent.id.desc()).limit(1))).scalar() or 0)

    async def notify(self, channel: str, payload: str) -> None:
        """PostgreSQL's `NOTIFY`, sent when the caller's transaction commits."""
        await self.session.execute(
            text("SELECT pg_notify(:channel, :payload)"), {"channel": channel, "payload": payload}
        )

    async def last_id(self) -> int:
        return int((await self.session.execute(select(func.max(ChatbotEvent.id)))).scalar() or 0)

    async def whose_after(self, after: int) -> list[tuple[int, str, str]]:
        """The id, chatbot and session of every event after the id `after`, oldest first."""
        statement = (
            select(ChatbotEvent.id, ChatbotEvent.chatbot_uuid, ChatbotEvent.session_uuid)
            .where(ChatbotEvent.id > after)
            .order_by(ChatbotEvent.id)
        )
        return [(event_id, chatbot, session) for event_id, chatbot, session in await self.session.execute(statement)]


class ChannelWindowRepository:
    """What live chat reads of a channel conversation for Meta's 24-hour window (`live.channel_window`)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def last_customer_messages(self, session_uuids: Sequence[str]) -> dict[str, datetime]:
        """When each session's customer last wrote (its latest row with a query)."""
        if not session_uuids:
            return {}
        statement = (
            select(Message.session_uuid, func.max(Message.created_at))
            .where(Message.session_uuid.in_(session_uuids), Message.query != "")
            .group_by(Message.session_uuid)
        )
        return {uuid: when for uuid, when in (await self.session.execute(statement)).all() if when is not None}

    async def channel_types(self, channel_uuids: Sequence[str]) -> dict[str, tuple[str, dict[str, object]]]:
        """Each channel's type and settings."""
        if not channel_uuids:
            return {}
        statement = select(Channel.uuid, Channel.type, Channel.settings).where(Channel.uuid.in_(channel_uuids))
        rows = (await self.session.execute(statement)).all()
        return {uuid: (kind, settings or {}) for uuid, kind, settings in rows}
