"""Webhook rules: a URL the egress policy refuses is refused at creation, the secret is made by the server and
shown once, another account's webhook is missing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.egress import EgressClient, EgressNetworkError, EgressRefused, EgressTimeout
from botyard.errors import AppError, ErrorCode
from botyard.models import Webhook as WebhookRow
from botyard.models import WebhookDelivery
from botyard.outbox import events, hooks
from botyard.outbox.signing import new_secret
from botyard.webhooks.schemas import Delivery, Webhook, WebhookCreate, WebhookUpdate


async def check_url(egress: EgressClient, url: str) -> str:
    """The URL's canonical form; 422 `url_refused` when the egress policy refuses it (private address, scheme,
    port). A host that does not resolve now is accepted: its deliveries will tell."""
    try:
        return await egress.check_url(url)
    except EgressRefused as error:
        detail = {"field": "url", "message": error.reason, "type": ErrorCode.URL_REFUSED.value}
        raise AppError(ErrorCode.URL_REFUSED, f"URL refused: {error.message}", [detail]) from error
    except (EgressNetworkError, EgressTimeout):
        return url


async def create(
    db: AsyncSession, egress: EgressClient, account_uuid: str, chatbot_uuid: str, body: WebhookCreate
) -> WebhookRow:
    url = await check_url(egress, body.url)  # before any database work: no lock is held while DNS answers
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    hook = WebhookRow(
        chatbot_uuid=chatbot.uuid, url=url, events=_unique(body.events), enabled=body.enabled, secret=new_secret()
    )
    return await hooks.add(db, hook)


async def list_of_chatbot(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Sequence[WebhookRow]:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return await hooks.of_chatbot(db, chatbot.uuid)


async def get_owned(db: AsyncSession, account_uuid: str, webhook_uuid: str) -> WebhookRow:
    return await hooks.owned(db, account_uuid, webhook_uuid)


async def update(
    db: AsyncSession, egress: EgressClient, account_uuid: str, webhook_uuid: str, body: WebhookUpdate
) -> WebhookRow:
    values = body.given()
    if "url" in values:
        values["url"] = await check_url(egress, values["url"])
    if "events" in values:
        values["events"] = _unique(values["events"])
    hook = await get_owned(db, account_uuid, webhook_uuid)
    return await hooks.update(db, hook, values)


async def rotate_secret(db: AsyncSession, account_uuid: str, webhook_uuid: str) -> WebhookRow:
    """A new secret; the old one signs nothing from now on."""
    hook = await get_owned(db, account_uuid, webhook_uuid)
    return await hooks.update(db, hook, {"secret": new_secret()})


async def delete(db: AsyncSession, account_uuid: str, webhook_uuid: str) -> None:
    """Delete the webhook with its deliveries (pending ones are not sent)."""
    await hooks.delete(db, await get_owned(db, account_uuid, webhook_uuid))


async def test(db: AsyncSession, account_uuid: str, webhook_uuid: str, now: datetime) -> WebhookDelivery:
    return await events.ping(db, await get_owned(db, account_uuid, webhook_uuid), now)


async def deliveries(db: AsyncSession, account_uuid: str, webhook_uuid: str, limit: int) -> Sequence[WebhookDelivery]:
    hook = await get_owned(db, account_uuid, webhook_uuid)
    return await hooks.deliveries(db, hook.uuid, limit)


def _unique(names: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(names))


def to_wire(hook: WebhookRow, *, with_secret: bool = False) -> Webhook:
    wire: Webhook = {
        "uuid": hook.uuid,
        "chatbot_uuid": hook.chatbot_uuid,
        "url": hook.url,
        "events": list(hook.events),
        "enabled": hook.enabled,
        "created_at": iso(hook.created_at),
        "modified_at": iso(hook.modified_at),
    }
    if with_secret:
        wire["secret"] = hook.secret
    return wire


def delivery_to_wire(row: WebhookDelivery) -> Delivery:
    return {
        "uuid": row.uuid,
        "webhook_uuid": row.webhook_uuid,
        "event_id": row.event_id,
        "event_type": row.event_type,
        "status": row.status,
        "attempts": row.attempts,
        "last_status_code": row.last_status_code,
        "last_error": row.last_error,
        "response_excerpt": row.response_excerpt,
        "next_attempt_at": None if row.next_attempt_at is None else iso(row.next_attempt_at),
        "created_at": iso(row.created_at),
        "finished_at": None if row.finished_at is None else iso(row.finished_at),
    }
