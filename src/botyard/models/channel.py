"""Channels: where a chatbot answers besides the widget (Telegram, Slack, WhatsApp, Messenger, Instagram, email,
SMS, a signed generic channel), the events that arrive on each, and the replies that go out.

A `channel_event` is one delivery of the provider's, keyed by the provider's own id (Telegram's `update_id`, the
generic channel's `id`) under a unique constraint: a repeated delivery finds its row and does nothing. A
`channel_reply` is one message to send, in order within its conversation (`sequence`), with the outcome of its
latest attempt. A `channel_receipt` is one message the provider took, under the provider's own id of it (Meta's
`wamid`/`mid`, Twilio's `MessageSid`, an email's `Message-ID`): where its delivery and read statuses are recorded, and
how a reply to it (an email's `In-Reply-To`) finds its conversation. A `channel_opt_out` is an external user who
asked to hear nothing more on a channel (SMS `STOP`) until they ask again (`START`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
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
    WHATSAPP = "whatsapp"
    MESSENGER = "messenger"
    INSTAGRAM = "instagram"
    EMAIL = "email"
    SMS = "sms"


WINDOWED_TYPES = frozenset({ChannelType.WHATSAPP.value, ChannelType.MESSENGER.value, ChannelType.INSTAGRAM.value})
"""Meta's channels, where a business may write freely only within `MESSAGING_WINDOW` of the customer's last message;
after it WhatsApp takes only an approved template, and Messenger and Instagram a person's reply tagged `HUMAN_AGENT`
within `HUMAN_AGENT_WINDOW`. Here, below both the channels that send and the live chat that refuses an operator's
reply, so that the rule is written once."""
MESSAGING_WINDOW = timedelta(hours=24)
HUMAN_AGENT_WINDOW = timedelta(days=7)


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
    poll_state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """What a listener of its own keeps beside `poll_offset` (an IMAP mailbox's `UIDVALIDITY`, say)."""


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
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """What the provider told beside the text, that a reply or the operator needs (an email's `Message-ID`,
    `References` and subject, its attachments' names; a WhatsApp number as Meta delivered it)."""


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
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """How it goes out beyond its text (an email's headers, the template a reply outside WhatsApp's 24-hour window
    was sent as)."""


class ReceiptStatus(StrEnum):
    """`channel_receipt.status`: how far a message the provider took has gone (it only moves forward)."""

    SENT = "sent"
    DELIVERED = "delivered"
    READ = "read"
    FAILED = "failed"


class ChannelReceipt(UuidPk, Base):
    """One message the provider took (a reply's part, or a customer's message for threading), by the provider's own
    id of it; its delivery and read statuses as the provider reports them."""

    __tablename__ = "channel_receipt"
    __table_args__ = (UniqueConstraint("channel_uuid", "provider_id", name="uq_channel_receipt_provider"),)

    channel_uuid: Mapped[str] = mapped_column(ForeignKey("channel.uuid", ondelete="CASCADE"))
    provider_id: Mapped[str] = mapped_column(String(255))
    reply_uuid: Mapped[str | None] = mapped_column(String(32), default=None, index=True)
    """The reply it was a part of (None: a message of the customer's, kept for threading)."""
    conversation: Mapped[str] = mapped_column(String(255), default="")
    status: Mapped[str] = mapped_column(String(16), default=ReceiptStatus.SENT.value)
    error: Mapped[str] = mapped_column(Text, default="")
    """The provider's reason when it could not deliver (Meta's error code and title)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    status_at: Mapped[datetime] = mapped_column(default=utcnow)


class ChannelOptOut(Base):
    """An external user who asked a channel to send nothing more (SMS `STOP`): nothing is sent to them on it until
    they write `START`."""

    __tablename__ = "channel_opt_out"

    channel_uuid: Mapped[str] = mapped_column(ForeignKey("channel.uuid", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    opted_out_at: Mapped[datetime] = mapped_column(default=utcnow)
