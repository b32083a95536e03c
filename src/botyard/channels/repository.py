"""The channel tables (`channel`, `channel_event`, `channel_reply`): SQL lives here only, and `channels` is their
one writer."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from botyard.db.repository import ChatbotPartRepository, Repository
from botyard.models import Channel, ChannelEvent, ChannelEventState, ChannelReply, ChannelType, ReplyState


class ChannelRepository(ChatbotPartRepository[Channel]):
    model = Channel
    noun = "Channel"

    async def of_chatbot(self, chatbot_uuid: str) -> Sequence[Channel]:
        statement = select(Channel).where(Channel.chatbot_uuid == chatbot_uuid).order_by(Channel.created_at)
        return (await self.session.scalars(statement)).all()

    async def bot_in_use(self, fingerprint: str, other_than: str | None = None) -> bool:
        """Whether a channel (of any account) other than `other_than` is on the bot of this token fingerprint."""
        statement = select(Channel.uuid).where(Channel.bot_fingerprint == fingerprint)
        if other_than is not None:
            statement = statement.where(Channel.uuid != other_than)
        return (await self.session.execute(statement.limit(1))).first() is not None

    async def write_unless_bot_taken(self, row: Channel, values: dict[str, Any] | None = None) -> bool:
        """Add the channel (or change it by `values`) unless its bot fingerprint is another channel's: False then,
        nothing written. The check before it cannot see a channel another transaction is adding at the same
        moment; the unique constraint does."""
        try:
            async with self.session.begin_nested():
                if values is None:
                    self.session.add(row)
                for key, value in (values or {}).items():
                    setattr(row, key, value)
                await self.session.flush()
        except IntegrityError:
            return False
        return True

    async def last_events(self, channel_uuids: Sequence[str]) -> dict[str, datetime]:
        """When each channel's latest delivery arrived (from its events: a delivery writes no channel row, so that
        a burst of them never queues on one row's lock)."""
        statement = (
            select(ChannelEvent.channel_uuid, func.max(ChannelEvent.received_at))
            .where(ChannelEvent.channel_uuid.in_(channel_uuids))
            .group_by(ChannelEvent.channel_uuid)
        )
        return {uuid: when for uuid, when in (await self.session.execute(statement)).all() if when is not None}

    async def note(self, channel_uuid: str, values: dict[str, Any]) -> None:
        """Change the channel's status fields (`last_sent_at`, `last_error`, `last_error_at`)
        without loading it, and without moving `modified_at` (the owner's last change)."""
        statement = update(Channel).where(Channel.uuid == channel_uuid).values(values)
        await self.session.execute(statement.execution_options(synchronize_session=False))

    async def polling(self) -> Sequence[str]:
        """The enabled Telegram channels whose mode is polling."""
        statement = select(Channel.uuid, Channel.settings).where(
            Channel.type == ChannelType.TELEGRAM, Channel.enabled.is_(True)
        )
        rows = (await self.session.execute(statement)).all()
        return [uuid for uuid, settings in rows if (settings or {}).get("mode") == "polling"]

    async def take_lease(self, channel_uuid: str, holder: str, now: datetime, until: datetime) -> bool:
        """Hold (or keep holding) the channel's polling lease until `until`: one conditional UPDATE, so two
        processes racing for it cannot both win. Whether `holder` holds it now."""
        free = or_(Channel.poll_holder.is_(None), Channel.poll_holder == holder, Channel.poll_expires_at < now)
        statement = (
            update(Channel)
            .where(Channel.uuid == channel_uuid, Channel.enabled.is_(True), free)
            .values(poll_holder=holder, poll_expires_at=until)
        )
        result = await self.session.execute(statement.execution_options(synchronize_session=False))
        return bool(getattr(result, "rowcount", 0))

    async def release_lease(self, channel_uuid: str, holder: str) -> None:
        statement = (
            update(Channel)
            .where(Channel.uuid == channel_uuid, Channel.poll_holder == holder)
            .values(poll_holder=None, poll_expires_at=None)
        )
        await self.session.execute(statement.execution_options(synchronize_session=False))

    async def move_offset(self, channel_uuid: str, holder: str, offset: int) -> bool:
        """Store the next `getUpdates` offset, only while `holder` still holds the lease (fenced)."""
        statement = (
            update(Channel)
            .where(Channel.uuid == channel_uuid, Channel.poll_holder == holder)
            .values(poll_offset=offset)
        )
        result = await self.session.execute(statement.execution_options(synchronize_session=False))
        return bool(getattr(result, "rowcount", 0))


class EventRepository(Repository[ChannelEvent]):
    model = ChannelEvent

    async def add_new(self, values: dict[str, Any]) -> bool:
        """Store the delivery unless one with its `external_id` is already stored: whether it was new. One
        statement, so concurrent repeats of one delivery store it once, on both databases."""
        dialect = self.session.get_bind().dialect.name
        insert = postgres_insert if dialect == "postgresql" else sqlite_insert
        statement = insert(ChannelEvent).values(values).on_conflict_do_nothing().returning(ChannelEvent.uuid)
        return (await self.session.execute(statement)).first() is not None

    async def pending(self, channel_uuid: str, conversation: str) -> Sequence[ChannelEvent]:
        """The conversation's events still to answer, in the provider's order."""
        statement = (
            select(ChannelEvent)
            .where(
                ChannelEvent.channel_uuid == channel_uuid,
                ChannelEvent.conversation == conversation,
                ChannelEvent.state == ChannelEventState.PENDING,
            )
            .order_by(ChannelEvent.position, ChannelEvent.received_at)
        )
        return (await self.session.scalars(statement)).all()

    async def settle(self, uuids: Sequence[str], state: ChannelEventState) -> None:
        statement = update(ChannelEvent).where(ChannelEvent.uuid.in_(uuids)).values(state=state)
        await self.session.execute(statement.execution_options(synchronize_session=False))


class ReplyRepository(Repository[ChannelReply]):
    model = ChannelReply

    async def next_sequence(self, channel_uuid: str, conversation: str) -> int:
        statement = select(func.coalesce(func.max(ChannelReply.sequence), 0)).where(
            ChannelReply.channel_uuid == channel_uuid, ChannelReply.conversation == conversation
        )
        return int((await self.session.execute(statement)).scalar_one()) + 1

    async def waits_for_earlier(self, reply: ChannelReply) -> bool:
        """Whether an earlier reply of the same conversation is still to be sent (this one goes after it)."""
        statement = select(ChannelReply.uuid).where(
            ChannelReply.channel_uuid == reply.channel_uuid,
            ChannelReply.conversation == reply.conversation,
            ChannelReply.sequence < reply.sequence,
            ChannelReply.state == ReplyState.PENDING,
        )
        return (await self.session.execute(statement.limit(1))).first() is not None

    async def latest_answer(self, channel_uuid: str, conversation: str) -> str | None:
        """The message of the conversation's latest reply, when that reply sends an answer (None: none, or the
        channel's own text such as the rate limit's message)."""
        statement = (
            select(ChannelReply.message_uuid)
            .where(ChannelReply.channel_uuid == channel_uuid, ChannelReply.conversation == conversation)
            .order_by(ChannelReply.sequence.desc())
            .limit(1)
        )
        return (await self.session.execute(statement)).scalar_one_or_none()

    async def record(self, reply_uuid: str, values: dict[str, Any]) -> None:
        statement = update(ChannelReply).where(ChannelReply.uuid == reply_uuid).values(values)
        await self.session.execute(statement.execution_options(synchronize_session=False))

    async def of_channel(self, channel_uuid: str, since: datetime | None = None) -> Sequence[ChannelReply]:
        statement = select(ChannelReply).where(ChannelReply.channel_uuid == channel_uuid)
        if since is not None:
            statement = statement.where(ChannelReply.created_at >= since)
        return (await self.session.scalars(statement.order_by(ChannelReply.created_at))).all()
