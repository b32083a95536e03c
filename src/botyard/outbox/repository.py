"""The SQL of webhooks and their deliveries."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, select

from botyard.db.repository import ChatbotPartRepository, Repository
from botyard.models import DeliveryStatus, Webhook, WebhookDelivery


class WebhookRepository(ChatbotPartRepository[Webhook]):
    model = Webhook
    noun = "Webhook"

    async def of_chatbot(self, chatbot_uuid: str) -> Sequence[Webhook]:
        """The chatbot's webhooks, oldest first."""
        statement = select(Webhook).where(Webhook.chatbot_uuid == chatbot_uuid)
        return await self.all(statement.order_by(Webhook.created_at, Webhook.uuid))

    async def enabled_of_chatbot(self, chatbot_uuid: str) -> Sequence[Webhook]:
        statement = select(Webhook).where(Webhook.chatbot_uuid == chatbot_uuid, Webhook.enabled.is_(True))
        return await self.all(statement.order_by(Webhook.created_at, Webhook.uuid))


class DeliveryRepository(Repository[WebhookDelivery]):
    model = WebhookDelivery

    async def with_webhook(self, delivery_uuid: str) -> tuple[WebhookDelivery, Webhook] | None:
        """The delivery and its webhook (None when either is gone)."""
        statement = (
            select(WebhookDelivery, Webhook)
            .join(Webhook, Webhook.uuid == WebhookDelivery.webhook_uuid)
            .where(WebhookDelivery.uuid == delivery_uuid)
        )
        row = (await self.session.execute(statement)).first()
        return None if row is None else (row[0], row[1])

    async def of_webhook(self, webhook_uuid: str, limit: int) -> Sequence[WebhookDelivery]:
        """The webhook's latest deliveries, newest first."""
        statement = (
            select(WebhookDelivery)
            .where(WebhookDelivery.webhook_uuid == webhook_uuid)
            .order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.uuid)
            .limit(limit)
        )
        return await self.all(statement)

    async def prune_finished(self, webhook_uuid: str, made_before: datetime) -> None:
        """Delete the webhook's deliveries made before `made_before` that are over (delivered or failed)."""
        await self.session.execute(
            delete(WebhookDelivery).where(
                WebhookDelivery.webhook_uuid == webhook_uuid,
                WebhookDelivery.created_at < made_before,
                WebhookDelivery.status != DeliveryStatus.PENDING.value,
            )
        )
