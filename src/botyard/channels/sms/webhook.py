"""SMS through Twilio: the channel's credentials checked, its webhooks taken in, and Twilio's REST API called.

A delivery to the inbound URL, in this order (each step before any work of the next):

1. The form's parameters read from the raw body, and `X-Twilio-Signature` checked over them and the public URL
   (BOTYARD_PUBLIC_URL and the request's path and query: behind a proxy, the request's own URL is not what Twilio
   signed) with the channel's auth token: 401 `signature_invalid`, nothing written.
2. A status callback moves the receipt of the message it names (`channel_receipt`).
3. A message is stored under its `MessageSid` (a repeat does nothing), in one brief write with what it asks:
   `STOP` and the other opt-out keywords an opt-out row (nothing is answered, nothing more sent), `START` its
   removal, `HELP` the channel's help text as a reply; any other text its answer queued, as every channel's
   (but for a number that opted out: its message is stored, not asked, since no answer could reach it).
4. The answer is empty TwiML (`<Response/>`), so that Twilio sends nothing itself: replies go by the REST API.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime, timedelta
from urllib.parse import parse_qsl

from fastapi import Request, Response
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels import intake, receipts
from botyard.channels.inbound import NotTheShape, Status
from botyard.channels.repository import ReplyRepository
from botyard.channels.schemas import ChannelSettings
from botyard.channels.sms import twilio
from botyard.channels.sms.repository import OptOutRepository
from botyard.chat.service import channel_session
from botyard.config import Settings
from botyard.db.session import Database
from botyard.errors import AppError, ErrorCode
from botyard.jobs.kinds import ChannelSend
from botyard.jobs.service import enqueue
from botyard.models import Channel, ChannelReply
from botyard.service_settings.cipher import Cipher

log = logging.getLogger(__name__)
EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>'
HELP_TEXT = (
    "{name}: an automated assistant answers your messages here. Reply STOP to receive no more messages, "
    "START to receive them again."
)


def signed_url(settings: Settings, request: Request) -> str:
    """The URL Twilio signed: the public address, the path, and the query as it came."""
    query = request.url.query
    return f"{settings.public_url.rstrip('/')}{request.url.path}" + (f"?{query}" if query else "")


async def inbound(
    settings: Settings, database: Database, channel: Channel, request: Request, body: bytes, now: datetime
) -> Response:
    """A Twilio webhook to the channel, taken in as the module's docstring says."""
    params = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
    sealed = channel.secrets.get("auth_token")
    token = None if sealed is None else Cipher(settings).open(sealed)
    headers = {name.lower(): value for name, value in request.headers.items()}
    if token is None or not twilio.signed(headers, signed_url(settings, request), params, token):
        raise AppError(ErrorCode.SIGNATURE_INVALID, "The delivery's signature is not this channel's.")
    try:
        found = twilio.webhook(dict(params))
    except NotTheShape as error:
        log.warning("channel %s: a delivery that is not Twilio's shape (%s): ignored", channel.uuid, error)
        return twiml()
    await database.write_briefly(lambda db: _taken(db, channel, found, now))
    return twiml()


def twiml() -> Response:
    return Response(EMPTY_TWIML, media_type="text/xml")


async def _taken(db: AsyncSession, channel: Channel, found: twilio.Message | twilio.Status, now: datetime) -> None:
    if isinstance(found, twilio.Status):
        await receipts.record(db, channel.uuid, [Status(found.message_sid, found.status, found.error)], now)
        return
    delivery = found.delivery
    if found.keyword is None and await OptOutRepository(db).has(channel.uuid, found.user):
        delivery = replace(delivery, said=None)  # an answer could not be sent: nothing is asked
    if not await intake.store(db, channel, delivery, now) or found.keyword is None:
        return
    if found.keyword == twilio.Keyword.STOP:
        await OptOutRepository(db).add(channel.uuid, found.user, now)
    elif found.keyword == twilio.Keyword.START:
        await OptOutRepository(db).remove(channel.uuid, found.user)
    else:
        await _help(db, channel, found, now)


async def _help(db: AsyncSession, channel: Channel, found: twilio.Message, now: datetime) -> None:
    """HELP answered with the channel's help text, as a reply of its conversation (in its order)."""
    settings = ChannelSettings.model_validate(channel.settings)
    idle = timedelta(hours=settings.session_idle_hours)
    session = await channel_session(db, channel.chatbot_uuid, channel.uuid, (found.user, ""), found.to, idle, now)
    conversation = f"{found.to}:{found.user}"  # as `inbound.Said` names it
    replies = ReplyRepository(db)
    reply = ChannelReply(
        channel_uuid=channel.uuid,
        conversation=conversation,
        sequence=await replies.next_sequence(channel.uuid, conversation),
        session_uuid=session.uuid,
        text=HELP_TEXT.format(name=channel.name or "This number"),
        recipient=found.user,
        thread=found.to,
    )
    await replies.add(reply)
    await enqueue(db, ChannelSend(reply.uuid), chatbot_uuid=channel.chatbot_uuid, max_attempts=1)
