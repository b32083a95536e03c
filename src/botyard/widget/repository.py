from __future__ import annotations

from botyard.db.repository import Repository
from botyard.models import WidgetSettings


class WidgetSettingsRepository(Repository[WidgetSettings]):
    model = WidgetSettings

    async def of_chatbot(self, chatbot_uuid: str) -> WidgetSettings | None:
        return await self.session.get(WidgetSettings, chatbot_uuid)
