from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from botyard.db.repository import Repository
from botyard.models import ChatbotEvent, WidgetSettings


class WidgetSettingsRepository(Repository[WidgetSettings]):
    model = WidgetSettings

    async def of_chatbot(self, chatbot_uuid: str) -> WidgetSettings | None:
        return await self.session.get(WidgetSettings, chatbot_uuid)


class SessionEventRepository(Repository[ChatbotEvent]):
    model = ChatbotEvent

    async def after(
        self, session_uuid: str, kinds: Sequence[str], after: int, limit: int = 100
    ) -> Sequence[ChatbotEvent]:
        statement = (
            select(ChatbotEvent)
            .where(ChatbotEvent.session_uuid == session_uuid, ChatbotEvent.id > after, ChatbotEvent.kind.in_(kinds))
            .order_by(ChatbotEvent.id)
            .limit(limit)
        )
        return await self.all(statement)

    async def last_id(self, session_uuid: str) -> int:
        statement = (
            select(ChatbotEvent.id).where(ChatbotEvent.session_uuid == session_uuid).order_by(ChatbotEvent.id.desc())
        )
        return int((await self.session.execute(statement.limit(1))).scalar() or 0)
