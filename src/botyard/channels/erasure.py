"""A person's erasure, as the channels take part in it (`contacts.erasure`): what a channel kept of their
conversations (the deliveries with their words, the replies sent to them, the receipts of both) goes with the
conversations, in the same transaction. An SMS opt-out stays: it is their own instruction to send nothing more."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels.repository import ErasureRepository
from botyard.chat.contact_sessions.service import SessionTrace


async def erase_channel_records(db: AsyncSession, traces: Sequence[SessionTrace]) -> None:
    records = ErasureRepository(db)
    await records.remove_replies([trace.session_uuid for trace in traces])
    for channel_uuid, user in {(trace.channel_uuid, trace.channel_user) for trace in traces if trace.channel_uuid}:
        await records.remove_deliveries(str(channel_uuid), user)
