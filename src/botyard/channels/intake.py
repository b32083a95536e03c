"""A delivery taken in, whichever way it came (a provider's POST to the inbound URL, or Telegram's `getUpdates`):
stored under the provider's own id, and its answer queued due once its burst may be over, in the caller's one
transaction. The unique constraint makes a repeat a no-op on both databases, however many arrive at once."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels.inbound import Delivery
from botyard.channels.repository import EventRepository
from botyard.channels.schemas import ChannelSettings
from botyard.db.base import new_uuid
from botyard.jobs.kinds import ChannelAnswer
from botyard.jobs.service import enqueue
from botyard.models import Channel, ChannelEventState


async def store(db: AsyncSession, channel: Channel, delivery: Delivery, now: datetime) -> bool:
    """The event and, when there is something to answer, its answer's job (due once the burst may be over), in
    the request's one transaction; False for a repeat."""
    said = delivery.said
    uuid = new_uuid()
    values: dict[str, Any] = {
        "uuid": uuid,
        "channel_uuid": channel.uuid,
        "external_id": delivery.external_id,
        "position": delivery.position,
        "received_at": now,
        "state": ChannelEventState.PENDING if said else ChannelEventState.IGNORED,
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
    if said is not None:
        wait = ChannelSettings.model_validate(channel.settings).burst_seconds
        await enqueue(
            db, ChannelAnswer(uuid), chatbot_uuid=channel.chatbot_uuid, run_after=now + timedelta(seconds=wait)
        )
    return True
