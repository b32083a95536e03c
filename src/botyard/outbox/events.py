"""Events into the outbox: one delivery row and one job per webhook that wants the event, in the caller's
transaction, so a delivery exists exactly when what it reports does (and a rolled-back request sends nothing).

The body every receiver gets: `{"id", "type", "created_at", "chatbot_uuid", "data"}`, `data` by type:

- `human_requested`: `session_uuid`, `reason`, `message_uuid` (the message that asked)
- `live_chat_started`, `live_chat_ended`: `session_uuid`, `message_uuid` (the announcement in the transcript)
- `variables_collected`: `session_uuid`, `message_uuid`, `variables` (name to value, those this message gave)
- `feedback`: `session_uuid`, `message_uuid`, `rating` (`up`/`down`), `comment`
- `source_failed`: `data_source_uuid`, `title`, `type`, `status` (`error:<reason>`)
- `test_run_finished`: `test_set_uuid`, `test_run_uuid`, `status` (`done`/`failed`), `total`, `passed`, `fixed`,
  `broken` (questions that pass or fail now and did not before)
- `contact_form_sent`: `session_uuid`, `message_uuid` (the transcript row), `email`, `message` (left after hours)
- `ping` (the test endpoint, to one webhook): `webhook_uuid`
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import iso, new_uuid
from botyard.jobs.service import enqueue
from botyard.models import DataSource, Webhook, WebhookDelivery, WebhookEvent
from botyard.outbox.repository import DeliveryRepository, WebhookRepository

KIND = "webhook_delivery"
"""The job kind: one job per attempt of a delivery."""
JOB_ATTEMPTS = 3
"""How often the runner retries one attempt's job that crashed (a bug, a database hiccup); the receiver's own
failures are retried by the sender, on its schedule."""


async def emit(
    db: AsyncSession, chatbot_uuid: str, event: WebhookEvent, data: dict[str, Any], now: datetime
) -> list[WebhookDelivery]:
    """Queue `event` for each of the chatbot's enabled webhooks that subscribed to it; one event id for all."""
    hooks = [hook for hook in await WebhookRepository(db).enabled_of_chatbot(chatbot_uuid) if event in hook.events]
    if not hooks:
        return []
    event_id = new_uuid()
    body = encode(event_id, event, chatbot_uuid, data, now)
    return [await queue(db, hook, event_id, event, body, now) for hook in hooks]


async def ping(db: AsyncSession, hook: Webhook, now: datetime) -> WebhookDelivery:
    """Queue a `ping` event for this webhook alone (enabled or not: the owner asked for it)."""
    event_id = new_uuid()
    body = encode(event_id, WebhookEvent.PING, hook.chatbot_uuid, {"webhook_uuid": hook.uuid}, now)
    return await queue(db, hook, event_id, WebhookEvent.PING, body, now)


async def source_failed(db: AsyncSession, source: DataSource, now: datetime) -> None:
    """A data source ended in `error:<reason>`."""
    data = {"data_source_uuid": source.uuid, "title": source.title, "type": source.type, "status": source.status}
    await emit(db, source.chatbot_uuid, WebhookEvent.SOURCE_FAILED, data, now)


def encode(event_id: str, event: WebhookEvent, chatbot_uuid: str, data: dict[str, Any], now: datetime) -> str:
    """The body, compact JSON: signed and sent as these exact bytes on every attempt."""
    payload = {"id": event_id, "type": event.value, "created_at": iso(now), "chatbot_uuid": chatbot_uuid, "data": data}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


async def queue(
    db: AsyncSession, hook: Webhook, event_id: str, event: WebhookEvent, body: str, now: datetime
) -> WebhookDelivery:
    delivery = WebhookDelivery(
        webhook_uuid=hook.uuid,
        event_id=event_id,
        event_type=event.value,
        body=body,
        next_attempt_at=now,
        created_at=now,
    )
    await DeliveryRepository(db).add(delivery)
    await enqueue_attempt(db, delivery, hook.chatbot_uuid, now)
    return delivery


async def enqueue_attempt(db: AsyncSession, delivery: WebhookDelivery, chatbot_uuid: str, due: datetime) -> None:
    """The job of the delivery's next attempt (it goes with the chatbot: deleting the chatbot cancels it)."""
    payload = {"delivery_uuid": delivery.uuid}
    await enqueue(db, KIND, payload, chatbot_uuid=chatbot_uuid, max_attempts=JOB_ATTEMPTS, run_after=due)
