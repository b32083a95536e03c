"""The providers' deliveries: `POST /channels/{channel_uuid}/inbound`, the URL a channel gives its provider.

In this order, each step before any work of the next: the channel (a missing or disabled one answers 404); the
signature on the raw bytes, in constant time (401 `signature_invalid`, nothing written), before the body is parsed
at all; the body read as the provider's delivery, a message or a button of a reply pressed (not its shape: 200,
logged, so that the provider stops retrying; too large: 413 by the service's body cap); then one transaction stores
the event under its provider id and queues its answer, and the route answers 200 at once. No model, search or send
runs inside the request (Slack gives up after 3 s, Telegram retries). A repeated delivery finds its id stored and
does nothing.

The channel is read in a brief read and the delivery stored in a brief write (`Database.brief_write`: on SQLite
its two inserts run on the loop's thread; a button pressed also reads its reply and message by their keys), so a
delivery holds the process's one SQLite writer only for those statements and their commit, not while its signature
is checked and its body parsed, and never across thread hops: with the request's ordinary unit of work, 200
deliveries a second queued behind each other's hops (p95 1.5 s on a loaded 2-core machine; see bench/channels.py).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import PlainTextResponse

from botyard.channels import generic, intake, meta, slack, telegram
from botyard.channels.inbound import Delivery, NotTheShape
from botyard.channels.meta_ingress import meta_delivery, subscribed
from botyard.channels.repository import ChannelRepository
from botyard.channels.service import open_secret
from botyard.channels.sms import webhook as sms
from botyard.config import Settings
from botyard.deps import AppClock, AppDatabase, AppSettings
from botyard.errors import AppError, ErrorCode, error_responses, not_found
from botyard.models import Channel, ChannelType

log = logging.getLogger(__name__)
router = APIRouter(tags=["channels"])


@router.post(
    "/channels/{channel_uuid}/inbound",
    response_model=dict[str, Any],
    responses={
        **error_responses({ErrorCode.SIGNATURE_INVALID: "the delivery is not signed with this channel's secret."}),
        200: {"content": {"text/xml": {}}, "description": "Stored; to Twilio (SMS), empty TwiML."},
    },
)
async def inbound(
    channel_uuid: str, request: Request, database: AppDatabase, settings: AppSettings, clock: AppClock
) -> dict[str, Any] | Response:
    """A provider's delivery to a channel (Telegram's update, Slack's event, the generic channel's signed event,
    Twilio's form-encoded webhook). Answers `{"ok": true}` once stored (or when there is nothing to store);
    `duplicate: true` for a repeat; Slack's URL verification with its `challenge`; Twilio, `<Response/>`."""
    body = await request.body()
    channel = await database.read_briefly(lambda db: ChannelRepository(db).get(channel_uuid))
    if channel is None or not channel.enabled:
        raise not_found("Channel")
    if channel.type == ChannelType.SMS:
        return await sms.inbound(settings, database, channel, request, body, clock())
    if not _signed(settings, channel, request, body):
        raise AppError(ErrorCode.SIGNATURE_INVALID, "The delivery's signature is not this channel's.")
    try:
        delivery = _delivery(settings, channel, _parsed(channel, request, body))
    except (ValueError, NotTheShape) as error:
        log.warning("channel %s: a delivery that is not the provider's shape (%s): ignored", channel.uuid, error)
        return {"ok": True, "ignored": "not the provider's shape"}
    if isinstance(delivery, slack.Challenge):
        return {"challenge": delivery.challenge}
    if isinstance(delivery, meta.Batch):
        batch = delivery
        new = await database.write_briefly(lambda db: intake.store_batch(db, channel, batch, clock()))
        return {"ok": True} if new or not batch.deliveries else {"ok": True, "duplicate": True}
    stored = await database.write_briefly(lambda db: intake.store(db, channel, delivery, clock()))
    return {"ok": True} if stored else {"ok": True, "duplicate": True}


@router.get(
    "/channels/{channel_uuid}/inbound",
    response_class=PlainTextResponse,
    responses=error_responses({ErrorCode.VERIFY_TOKEN_INVALID: "the verify token is not this channel's."}),
)
async def subscription(
    channel_uuid: str, request: Request, database: AppDatabase, settings: AppSettings
) -> PlainTextResponse:
    """Meta's webhook verification (WhatsApp, Messenger, Instagram): `hub.challenge` echoed as text when
    `hub.verify_token` is the channel's; 403 otherwise."""
    channel = await database.read_briefly(lambda db: ChannelRepository(db).get(channel_uuid))
    if channel is None or not channel.enabled or channel.type not in meta.META_TYPES:
        raise not_found("Channel")
    return subscribed(settings, channel, request.query_params)


def _signed(settings: Settings, channel: Channel, request: Request, body: bytes) -> bool:
    headers = {name.lower(): value for name, value in request.headers.items()}
    if channel.type in meta.META_TYPES:
        secret = open_secret(settings, channel, "app_secret")
        return secret is not None and meta.signed(headers, body, secret)
    if channel.type == ChannelType.TELEGRAM:
        secret = open_secret(settings, channel, "webhook_secret")
        return secret is not None and telegram.signed(headers, secret)
    secret = open_secret(settings, channel, "signing_secret")
    if channel.type == ChannelType.SLACK:
        return secret is not None and slack.signed(headers, body, secret)
    return secret is not None and generic.signed(headers, body, secret)


def _parsed(channel: Channel, request: Request, body: bytes) -> Any:
    """The body as the provider wrote it: JSON, or Slack's form-encoded interactivity request (a button pressed)."""
    if channel.type == ChannelType.SLACK:
        return slack.parsed(body, request.headers.get("content-type", ""))
    return json.loads(body)


def _delivery(settings: Settings, channel: Channel, parsed: Any) -> Delivery | slack.Challenge | meta.Batch:
    if channel.type in meta.META_TYPES:
        return meta_delivery(settings, channel, parsed)
    if channel.type == ChannelType.TELEGRAM:
        return telegram.delivery(parsed)
    if channel.type == ChannelType.SLACK:
        return slack.delivery(parsed, open_secret(settings, channel, "bot_user_id") or "")
    return generic.delivery(parsed)
