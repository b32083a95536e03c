"""The webhooks the outbox delivers to, as the rest of the service keeps them: `outbox` owns the webhook and delivery
tables (it reads them to fan events out and to send), and `webhooks` (the API) changes them only through these."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Webhook, WebhookDelivery
from botyard.outbox.repository import DeliveryRepository, WebhookRepository


async def add(db: AsyncSession, hook: Webhook) -> Webhook:
    return await WebhookRepository(db).add(hook)


async def of_chatbot(db: AsyncSession, chatbot_uuid: str) -> Sequence[Webhook]:
    """The chatbot's webhooks, oldest first."""
    return await WebhookRepository(db).of_chatbot(chatbot_uuid)


async def owned(db: AsyncSession, account_uuid: str, webhook_uuid: str) -> Webhook:
    """The account's webhook, or 404 (another account's answers exactly like a missing one)."""
    return await WebhookRepository(db).get_owned(account_uuid, webhook_uuid)


async def update(db: AsyncSession, hook: Webhook, values: dict[str, Any]) -> Webhook:
    return await WebhookRepository(db).update(hook, values)


async def delete(db: AsyncSession, hook: Webhook) -> None:
    """The webhook goes with its deliveries (pending ones are not sent)."""
    await WebhookRepository(db).delete(hook)


async def deliveries(db: AsyncSession, webhook_uuid: str, limit: int) -> Sequence[WebhookDelivery]:
    """The webhook's latest deliveries, newest first."""
    return await DeliveryRepository(db).of_webhook(webhook_uuid, limit)
