"""The `integration_hook` table: SQL lives here only, and `integrations` is its one writer."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from botyard.db.repository import ChatbotPartRepository
from botyard.models import IntegrationHook


class IntegrationHookRepository(ChatbotPartRepository[IntegrationHook]):
    model = IntegrationHook
    noun = "Subscription"

    async def of_chatbot(self, chatbot_uuid: str, platform: str) -> Sequence[IntegrationHook]:
        statement = select(IntegrationHook).where(
            IntegrationHook.chatbot_uuid == chatbot_uuid, IntegrationHook.platform == platform
        )
        return await self.all(statement.order_by(IntegrationHook.created_at, IntegrationHook.uuid))
