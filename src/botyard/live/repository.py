"""The operators' events: appended in the transaction of what they report, read in id order."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select, text

from botyard.db.repository import Repository
from botyard.models import ChatbotEvent


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
