"""Webhooks: a chatbot's events POSTed to the owner's URLs, signed as Standard Webhooks sign. Not in the hosted
interface; designed in its style (`/chatbot/{uuid}/webhook/create` to create, `/webhook/{uuid}` to follow)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from botyard.deps import AppClock, DbSession, Egress, ReadDbSession
from botyard.identity.access import Audited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import Success
from botyard.webhooks import service
from botyard.webhooks.schemas import Delivery, Webhook, WebhookCreate, WebhookUpdate

router = APIRouter(tags=["webhooks"])


@router.post(
    "/chatbot/{uuid}/webhook/create",
    response_model=Webhook,
    dependencies=[requires(Permission.MANAGE, made(AuditObject.WEBHOOK))],
)
async def create_webhook(
    uuid: str, body: WebhookCreate, db: DbSession, account: CurrentAccount, egress: Egress
) -> Webhook:
    """Register a URL for the chatbot's events (`events`, default all). The answer carries the signing `secret`
    (`whsec_...`), shown this once. A URL the egress policy refuses (private address unless allowlisted, scheme,
    port) answers 422 `url_refused`."""
    return service.to_wire(await service.create(db, egress, account, uuid, body), with_secret=True)


@router.get("/chatbot/{uuid}/webhooks", response_model=list[Webhook], dependencies=[requires(Permission.READ)])
async def list_webhooks(uuid: str, db: ReadDbSession, account: CurrentAccount) -> list[Webhook]:
    """The chatbot's webhooks, oldest first (without their secrets)."""
    return [service.to_wire(hook) for hook in await service.list_of_chatbot(db, account, uuid)]


@router.get("/webhook/{uuid}", response_model=Webhook, dependencies=[requires(Permission.READ)])
async def get_webhook(uuid: str, db: ReadDbSession, account: CurrentAccount) -> Webhook:
    """One webhook (without its secret)."""
    return service.to_wire(await service.get_owned(db, account, uuid))


@router.post(
    "/webhook/{uuid}/update",
    response_model=Webhook,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.WEBHOOK, AuditAction.UPDATED))],
)
async def update_webhook(
    uuid: str, body: WebhookUpdate, db: DbSession, account: CurrentAccount, egress: Egress
) -> Webhook:
    """Change the URL (checked as at creation), the events, or `enabled` (a disabled webhook gets no new events and
    its pending deliveries fail)."""
    return service.to_wire(await service.update(db, egress, account, uuid, body))


@router.post(
    "/webhook/{uuid}/rotate-secret",
    response_model=Webhook,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.WEBHOOK, AuditAction.UPDATED, "secret rotated"))],
)
async def rotate_webhook_secret(uuid: str, db: DbSession, account: CurrentAccount) -> Webhook:
    """A new signing secret, shown this once; the old one signs nothing from now on."""
    return service.to_wire(await service.rotate_secret(db, account, uuid), with_secret=True)


@router.delete(
    "/webhook/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.WEBHOOK, AuditAction.DELETED))],
)
async def delete_webhook(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete a webhook and its deliveries."""
    await service.delete(db, account, uuid)
    return Success()


@router.post(
    "/webhook/{uuid}/test",
    response_model=Delivery,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.WEBHOOK, AuditAction.STARTED, "test delivery"))],
)
async def test_webhook(uuid: str, db: DbSession, account: CurrentAccount, clock: AppClock) -> Delivery:
    """Send a `ping` event to this webhook (even a disabled one): the answer is its delivery, `pending`; follow it
    in `GET /webhook/{uuid}/deliveries`."""
    return service.delivery_to_wire(await service.test(db, account, uuid, clock()))


@router.get("/webhook/{uuid}/deliveries", response_model=list[Delivery], dependencies=[requires(Permission.READ)])
async def list_deliveries(
    uuid: str,
    db: ReadDbSession,
    account: CurrentAccount,
    limit: Annotated[int, Query(ge=1, le=200, description="At most this many deliveries.")] = 50,
) -> list[Delivery]:
    """The webhook's latest deliveries, newest first: `status` (`pending`, `delivered`, `failed`), `attempts`, the
    last attempt's HTTP status and error, the start of the receiver's answer, and when the next attempt is due."""
    return [service.delivery_to_wire(row) for row in await service.deliveries(db, account, uuid, limit)]
