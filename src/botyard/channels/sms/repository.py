"""The table SMS writes beside the channel core's: `channel_opt_out` (who sent STOP). SQL lives here only. The
message SIDs Twilio gave our messages are receipts like every channel's (`channels.receipts`): a status callback that
arrives late (Twilio does not promise their order) never takes one back."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import ChannelOptOut


class OptOutRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, channel_uuid: str, user_id: str, now: datetime) -> None:
        """The user opted out (again: nothing changes, one statement so that concurrent STOPs are one row)."""
        insert = postgres_insert if self.session.get_bind().dialect.name == "postgresql" else sqlite_insert
        values = {"channel_uuid": channel_uuid, "user_id": user_id, "opted_out_at": now}
        await self.session.execute(insert(ChannelOptOut).values(values).on_conflict_do_nothing())

    async def remove(self, channel_uuid: str, user_id: str) -> None:
        statement = delete(ChannelOptOut).where(ChannelOptOut.channel_uuid == channel_uuid)
        await self.session.execute(statement.where(ChannelOptOut.user_id == user_id))

    async def has(self, channel_uuid: str, user_id: str) -> bool:
        statement = select(ChannelOptOut.user_id).where(
            ChannelOptOut.channel_uuid == channel_uuid, ChannelOptOut.user_id == user_id
        )
        return (await self.session.execute(statement)).first() is not None
