"""The SQL of a chatbot's hand-off settings (one row per chatbot, or none: the defaults)."""

from __future__ import annotations

from botyard.db.repository import Repository
from botyard.models import HandoffSettings


class HandoffSettingsRepository(Repository[HandoffSettings]):
    model = HandoffSettings

    async def of_chatbot(self, chatbot_uuid: str) -> HandoffSettings | None:
        return await self.get(chatbot_uuid)
