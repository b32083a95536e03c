"""The `channel_receipt` table: each message a provider took, under its own id (Meta's `wamid` or `mid`, Twilio's
`MessageSid`), with the reply it was a part of, and its statuses as the provider reports them. Every channel records
through here (its SQL in `channels.repository`).

A status only moves forward (`FORWARD`: a `read` never goes back to `delivered`, a late `sent` changes nothing), in
one conditional UPDATE, so two deliveries of statuses racing cannot move it back either. A `failed` status writes
the provider's code and title as the reply's and the channel's `last_error`: the owner sees why the customer never
got it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels.inbound import Status
from botyard.channels.repository import ChannelRepository, ReceiptRepository, ReplyRepository
from botyard.db.base import new_uuid
from botyard.models import ReceiptStatus


async def sent(
    db: AsyncSession, channel_uuid: str, provider_id: str, reply_uuid: str, conversation: str, now: datetime
) -> None:
    """A part of a reply the provider took, under its id (again: nothing changes)."""
    values = {"provider_id": provider_id, "reply_uuid": reply_uuid, "conversation": conversation}
    await ReceiptRepository(db).add_new(
        {"uuid": new_uuid(), "channel_uuid": channel_uuid, **values, "created_at": now, "status_at": now}
    )


async def record(db: AsyncSession, channel_uuid: str, statuses: Sequence[Status], now: datetime) -> None:
    """The statuses of a delivery, in its order; a failure also noted on its reply and the channel."""
    receipts = ReceiptRepository(db)
    for status in statuses:
        reply_uuid = await receipts.move(channel_uuid, status.provider_id, status.status, status.error, now)
        if reply_uuid is None or status.status != ReceiptStatus.FAILED.value:
            continue
        reason = status.error or "the provider could not deliver it"
        if reply_uuid:
            await ReplyRepository(db).record(reply_uuid, {"last_error": reason})
        await ChannelRepository(db).note(channel_uuid, {"last_error": reason, "last_error_at": now})
