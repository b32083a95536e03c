"""Channels: where a chatbot answers besides the widget (Telegram, a signed generic channel), the events that
arrive on each, and the replies that go out.

A `channel_event` is one delivery of the provider's, keyed by the provider's own id (Telegram's `update_id`, the
generic channel's `id`) under a unique constraint: a repeated delivery finds its row and does nothing. A
`channel_reply` is one message to send, in order within its conversation (`sequence`), with the outcome of its
latest attempt.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk, utcnow


class ChannelType(StrEnum):
    """`channel.type`: which provider a channel speaks to."""

    TELEGRAM = "telegram"
    SLACK = "slack"
    GENERIC = "generic"


class ChannelEventState(StrEnum):
    """`channel_event.state`."""

    PENDING = "pending"
    """Stored, its answer not yet made (it may wait for the conversation's burst to end)."""
    ANSWERED = "answered"
    """Its text was asked, alone or joined with the messages of its burst."""
    IGNORED = "ignored"
    """Nothing to answer: an edit, a bot's message, a kind of update the channel does not answer."""


class ReplyState(StrEnum):
    """`channel_reply.state`."""

    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    """Given up: the provider refused it for good (a bad token, a blocked chat) or every attempt failed."""


class Channel(UuidPk, Timestamps, Base):
    """A chatbot's connection to one provider. `secrets` holds each credential sealed (`service_settings.cipher`):
    never returned, shown as a hint of its last characters. The inbound URL is `/channels/{uuid}/inbound`."""

    __tablename__ = "channel"
    __table_args__ = (UniqueConstraint("bot_fingerprint", name="uq_channel_bot_fingerprint"),)

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), index=True)
    type: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(Text, default="")
    enabled: Mapped[bool] = mapped_column(default=True)
    secrets: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """Credential name -> sealed value."""
    hints: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """Credential name -> its last four characters, what the API shows of it."""
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """The channel's own settings (`channels.schemas.ChannelSettings`)."""
    last_sent_at: Mapped[datetime | None] = mapped_column(default=None)
    last_error: Mapped[str] = mapped_column(Text, default="")
    last_error_at: Mapped[datetime | None] = mapped_column(default=None)
    poll_offset: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), default=0)
    """Telegram long polling: the `update_id` after the last update stored (the next `getUpdates`' offset)."""
    poll_holder: Mapped[str | None] = mapped_column(String(64), default=None)
    """The process that polls this channel (its lease, `channels.polling`); None: nobody."""
    poll_expires_at: Mapped[datetime | None] = mapped_column(default=None)
    """When the lease ends unless its holder renews it: another process may take it over after."""
    bot_fingerprint: Mapped[str | None] = mapped_column(String(64), default=None)
    """A keyed fingerprint of the Telegram or Slack bot token (`channels.bots`), unique: one channel per bot, since
    two would take each other's updates. Never the token; None for a generic channel."""


class ChannelEvent(UuidPk, Base):
    """One delivery of the provider's: what it said (`text`, empty when there is nothing to answer), who in which
    conversation (`conversation`: the external user and thread, as the channel names them) and in which order
    (`position`: the provider's own order, Telegram's `update_id`)."""

    __tablename__ = "channel_event"
    __table_args__ = (
        UniqueConstraint("channel_uuid", "external_id", name="uq_channel_event_external"),
        Index("ix_channel_event_conversation", "channel_uuid", "conversation", "state"),
        Index("ix_channel_event_received", "channel_uuid", "received_at"),
    )

    channel_uuid: Mapped[str] = mapped_column(ForeignKey("channel.uuid", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(128))
    conversation: Mapped[str] = mapped_column(String(255), default="")
    user_id: Mapped[str] = mapped_column(String(128), default="")
    user_name: Mapped[str] = mapped_column(Text, default="")
    thread: Mapped[str] = mapped_column(String(128), default="")
    text: Mapped[str] = mapped_column(Text, default="")
    position: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), default=0)
    state: Mapped[str] = mapped_column(String(16), default=ChannelEventState.PENDING.value)
    received_at: Mapped[datetime] = mapped_column(default=utcnow)


class ChannelReply(UuidPk, Base):
    """One message to send on a channel: the answer to a conversation's burst (`message_uuid`, the stored answer),
    rendered for the provider when it is sent. Replies of one conversation go out in `sequence` order."""

    __tablename__ = "channel_reply"
    __table_args__ = (Index("ix_channel_reply_conversation", "channel_uuid", "conversation", "sequence"),)

    channel_uuid: Mapped[str] = mapped_column(ForeignKey("channel.uuid", ondelete="CASCADE"))
    conversation: Mapped[str] = mapped_column(String(255))
    sequence: Mapped[int] = mapped_column()
    session_uuid: Mapped[str] = mapped_column(String(32))
    message_uuid: Mapped[str | None] = mapped_column(String(32), default=None)
    """The stored answer it sends (None: a reply of the channel's own, `text`, such as the rate limit's message)."""
    text: Mapped[str] = mapped_column(Text, default="")
    recipient: Mapped[str] = mapped_column(String(128))
    """Where the provider sends it (Telegram's chat id, the generic channel's user id)."""
    thread: Mapped[str] = mapped_column(String(128), default="")
    state: Mapped[str] = mapped_column(String(16), default=ReplyState.PENDING.value)
    attempts: Mapped[int] = mapped_column(default=0)
    parts_sent: Mapped[int] = mapped_column(default=0)
    """How many of the rendered parts (a long answer is split) the provider has: a retry sends only the rest."""
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(default=None)
