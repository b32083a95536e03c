"""A delivery taken in, whichever way it came (a provider's POST to the inbound URL, or Telegram's `getUpdates`):
stored under the provider's own id, and its answer queued due once its burst may be over, in the caller's one
transaction. The unique constraint makes a repeat a no-op on both databases, however many arrive at once. A button
pressed is stored as the message it stands for (its choice's text, `buttons.pressed`); one that stands for nothing
of this channel's is stored as nothing to answer (Telegram's press is still answered, by the job)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels import buttons, receipts
from botyard.channels.inbound import Delivery, Pressed, Said
from botyard.channels.meta import Batch
from botyard.channels.repository import EventRepository, ReplyRepository
from botyard.channels.schemas import ChannelSettings
from botyard.chat.service import messages_by_uuids
from botyard.db.base import new_uuid
from botyard.jobs.kinds import ChannelAnswer
from botyard.jobs.service import enqueue
from botyard.models import Channel, ChannelEventState, MessageMeta


async def store(db: AsyncSession, channel: Channel, delivery: Delivery, now: datetime) -> bool:
    """The event and, when there is something to answer, its answer's job (due once the burst may be over), in
    the request's one transaction; False for a repeat."""
    pressed = delivery.pressed
    said = delivery.said if pressed is None else await _pressed(db, channel, pressed)
    callback = pressed.callback_query_id if pressed is not None else ""
    uuid = new_uuid()
    values: dict[str, Any] = {
        "uuid": uuid,
        "channel_uuid": channel.uuid,
        "external_id": delivery.external_id,
        "position": delivery.position,
        "received_at": now,
        "state": ChannelEventState.PENDING if said else ChannelEventState.IGNORED,
        "details": dict(delivery.details),
    }
    if said is not None:
        values |= {
            "conversation": said.conversation,
            "user_id": said.user_id,
            "user_name": said.user_name,
            "thread": said.thread,
            "text": said.text,
        }
    if not await EventRepository(db).add_new(values):
        return False
    if said is not None or callback:
        wait = ChannelSettings.model_validate(channel.settings).burst_seconds
        await enqueue(
            db,
            ChannelAnswer(uuid, callback),
            chatbot_uuid=channel.chatbot_uuid,
            run_after=now + timedelta(seconds=wait),
        )
    return True


async def store_batch(db: AsyncSession, channel: Channel, batch: Batch, now: datetime) -> int:
    """Each message of a batch (Meta's one POST of several) as its own event, and its statuses recorded on the
    receipts, in the one transaction: how many messages were new."""
    stored = 0
    for delivery in batch.deliveries:
        stored += await store(db, channel, delivery, now)
    await receipts.record(db, channel.uuid, batch.statuses, now)
    return stored


async def _pressed(db: AsyncSession, channel: Channel, press: Pressed) -> Said | None:
    """What a button press says: its choice's text, in the chat of the reply it was sent with, by the one who pressed
    it. None when its token is not a choice of one of this channel's replies (forged, or its reply deleted)."""
    found = buttons.read_token(press.token)
    reply = None if found is None else await ReplyRepository(db).get(found[0])
    if found is None or reply is None or reply.channel_uuid != channel.uuid or reply.message_uuid is None:
        return None
    message = (await messages_by_uuids(db, [reply.message_uuid])).get(reply.message_uuid)
    choices = MessageMeta.of(message).choices if message is not None else []
    if found[1] >= len(choices):
        return None
    return Said(press.user_id, press.user_name, reply.thread, choices[found[1]])
