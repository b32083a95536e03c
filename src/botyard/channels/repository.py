"""The channel tables (`channel`, `channel_event`, `channel_reply`, `channel_receipt`): SQL lives here only, and
`channels` is their one writer."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from botyard.db.repository import ChatbotPartRepository, Repository
from botyard.models import (
    Channel,
    ChannelEvent,
    ChannelEventState,
    ChannelReceipt,
    ChannelReply,
    ChannelType,
    ReceiptStatus,
    ReplyState,
)


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
        """The enabled channels a process listens to: Telegram's whose mode is polling, and every mailbox."""
        statement = select(Channel.uuid, Channel.type, Channel.settings).where(
            Channel.type.in_((ChannelType.TELEGRAM, ChannelType.EMAIL)), Channel.enabled.is_(True)
        )
        rows = (await self.session.execute(statement)).all()
        return [
            uuid
            for uuid, kind, settings in rows
            if kind == ChannelType.EMAIL or (settings or {}).get("mode") == "polling"
        ]

    async def enabled_of_type(self, kind: ChannelType) -> Sequence[Channel]:
        statement = select(Channel).where(Channel.type == kind, Channel.enabled.is_(True))
        return (await self.session.scalars(statement.order_by(Channel.created_at))).all()

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

    async def move_offset(
        self, channel_uuid: str, holder: str, offset: int, state: dict[str, Any] | None = None
    ) -> bool:
        """Store the next `getUpdates` offset (a mailbox's last UID, and its `state`), only while `holder` still
        holds the lease (fenced)."""
        values: dict[str, Any] = {"poll_offset": offset} | ({} if state is None else {"poll_state": state})
        statement = update(Channel).where(Channel.uuid == channel_uuid, Channel.poll_holder == holder).values(values)
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

    async def latest_of_conversation(self, channel_uuid: str, conversation: str) -> ChannelEvent | None:
        """The conversation's latest message of the customer's (its window, where WhatsApp sends a reply)."""
        statement = (
            select(ChannelEvent)
            .where(ChannelEvent.channel_uuid == channel_uuid, ChannelEvent.conversation == conversation)
            .order_by(ChannelEvent.received_at.desc(), ChannelEvent.position.desc())
            .limit(1)
        )
        return (await self.session.scalars(statement)).first()

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


FORWARD = {
    ReceiptStatus.DELIVERED.value: (ReceiptStatus.SENT.value,),
    ReceiptStatus.READ.value: (ReceiptStatus.SENT.value, ReceiptStatus.DELIVERED.value),
    ReceiptStatus.FAILED.value: (ReceiptStatus.SENT.value, ReceiptStatus.DELIVERED.value),
}
"""Each status a receipt can move to, from the statuses it may be in before."""


class ReceiptRepository(Repository[ChannelReceipt]):
    model = ChannelReceipt

    async def add_new(self, values: dict[str, Any]) -> None:
        """A message the provider took, unless its id is stored already (a retry that sent it again under the same
        id): one statement, on both databases."""
        dialect = self.session.get_bind().dialect.name
        insert = postgres_insert if dialect == "postgresql" else sqlite_insert
        await self.session.execute(insert(ChannelReceipt).values(values).on_conflict_do_nothing())

    async def move(self, channel_uuid: str, provider_id: str, status: str, error: str, now: datetime) -> str | None:
        """Move the receipt of `provider_id` forward to `status`: the reply it belongs to when it moved (""
        for a customer's message; None: unknown, or the move would go backward)."""
        before = FORWARD.get(status)
        if before is None or not provider_id:
            return None
        statement = (
            update(ChannelReceipt)
            .where(
                ChannelReceipt.channel_uuid == channel_uuid,
                ChannelReceipt.provider_id == provider_id,
                ChannelReceipt.status.in_(before),
            )
            .values(status=status, error=error, status_at=now)
            .returning(ChannelReceipt.reply_uuid)
        )
        moved = (await self.session.execute(statement.execution_options(synchronize_session=False))).first()
        return None if moved is None else (moved[0] or "")

    async def of_reply(self, reply_uuid: str) -> Sequence[ChannelReceipt]:
        statement = select(ChannelReceipt).where(ChannelReceipt.reply_uuid == reply_uuid)
        return (await self.session.scalars(statement.order_by(ChannelReceipt.created_at))).all()


class MailThreadRepository(Repository[ChannelEvent]):
    """What the email channel reads of its events and receipts to join a mail to its thread
    (`channels.email.threads`); its replies' `Message-ID`s are receipts like every channel's (`ReceiptRepository`)."""

    model = ChannelEvent

    async def thread_of(self, channel_uuid: str, message_ids: Sequence[str]) -> str | None:
        """The thread of the first of `message_ids` (stored ids of mails) that is one of this channel's, a mail
        received or a reply sent; None when none is."""
        for message_id in message_ids:
            received = select(ChannelEvent.thread).where(
                ChannelEvent.channel_uuid == channel_uuid,
                ChannelEvent.external_id == message_id,
                ChannelEvent.thread != "",
            )
            thread = (await self.session.execute(received.limit(1))).scalar_one_or_none()
            if thread:
                return str(thread)
            sent = select(ChannelReceipt.conversation).where(
                ChannelReceipt.channel_uuid == channel_uuid, ChannelReceipt.provider_id == message_id
            )
            conversation = (await self.session.execute(sent.limit(1))).scalar_one_or_none()
            if conversation:
                return str(conversation).partition(":")[0]
        return None

    async def has_thread(self, channel_uuid: str, thread: str) -> bool:
        statement = select(ChannelEvent.uuid).where(
            ChannelEvent.channel_uuid == channel_uuid, ChannelEvent.thread == thread
        )
        return (await self.session.execute(statement.limit(1))).first() is not None

    async def latest(self, channel_uuid: str, conversation: str) -> ChannelEvent | None:
        """The conversation's latest mail received (what a reply answers, in its thread)."""
        statement = (
            select(ChannelEvent)
            .where(ChannelEvent.channel_uuid == channel_uuid, ChannelEvent.conversation == conversation)
            .order_by(ChannelEvent.received_at.desc(), ChannelEvent.position.desc())
            .limit(1)
        )
        return (await self.session.scalars(statement)).first()


class ErasureRepository(Repository[ChannelEvent]):
    """What the channels' tables keep of a customer, deleted when the person is erased (`channels.erasure`)."""

    model = ChannelEvent

    async def remove_replies(self, session_uuids: Sequence[str]) -> None:
        """The replies sent into those conversations, with their receipts."""
        if not session_uuids:
            return
        replies = select(ChannelReply.uuid).where(ChannelReply.session_uuid.in_(session_uuids))
        await self.session.execute(delete(ChannelReceipt).where(ChannelReceipt.reply_uuid.in_(replies)))
        await self.session.execute(delete(ChannelReply).where(ChannelReply.session_uuid.in_(session_uuids)))

    async def remove_deliveries(self, channel_uuid: str, user_id: str) -> None:
        """What the customer `user_id` sent on the channel, and the receipts kept for threading their messages."""
        events = (ChannelEvent.channel_uuid == channel_uuid, ChannelEvent.user_id == user_id)
        conversations = select(ChannelEvent.conversation).where(*events)
        await self.session.execute(
            delete(ChannelReceipt).where(
                ChannelReceipt.channel_uuid == channel_uuid,
                ChannelReceipt.reply_uuid.is_(None),
                ChannelReceipt.conversation.in_(conversations),
            )
        )
        await self.session.execute(delete(ChannelEvent).where(*events))
