"""Webhooks: the URLs an owner registers per chatbot, and one delivery row per (event, webhook)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk, utcnow


class WebhookEvent(StrEnum):
    """The `type` of an event sent to webhooks (`ping` only by the test endpoint, to one webhook)."""

    HUMAN_REQUESTED = "human_requested"
    LIVE_CHAT_STARTED = "live_chat_started"
    LIVE_CHAT_ENDED = "live_chat_ended"
    VARIABLES_COLLECTED = "variables_collected"
    FEEDBACK = "feedback"
    SOURCE_FAILED = "source_failed"
    TEST_RUN_FINISHED = "test_run_finished"
    CONTACT_FORM_SENT = "contact_form_sent"
    PING = "ping"


class DeliveryStatus(StrEnum):
    """`webhook_delivery.status`."""

    PENDING = "pending"
    """Not yet accepted: the next attempt is due at `next_attempt_at`."""
    DELIVERED = "delivered"
    """The receiver answered 2xx."""
    FAILED = "failed"
    """Given up: a refused URL, a 4xx other than 408/429, or the last attempt failed."""


class Webhook(UuidPk, Timestamps, Base):
    """A URL that receives a chatbot's events. `secret` signs every delivery, so it is stored as it is (like a tool
    function's headers): the API shows it only when it is made (creation, rotation)."""

    __tablename__ = "webhook"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(Text)
    events: Mapped[list[str]] = mapped_column(default=list)
    enabled: Mapped[bool] = mapped_column(default=True)
    secret: Mapped[str] = mapped_column(String(64))


class WebhookDelivery(UuidPk, Base):
    """One event for one webhook (the outbox): written in the transaction of what the event reports, sent by the
    job runner (one `webhook_delivery` job per attempt), its latest attempt's outcome kept here. `body` is the exact
    JSON sent, every attempt the same bytes; `event_id` is the `webhook-id` header, shared by every attempt."""

    __tablename__ = "webhook_delivery"
    __table_args__ = (Index("ix_webhook_delivery_webhook_created", "webhook_uuid", "created_at"),)

    webhook_uuid: Mapped[str] = mapped_column(ForeignKey("webhook.uuid", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(String(32))
    event_type: Mapped[str] = mapped_column(String(32))
    body: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=DeliveryStatus.PENDING.value)
    attempts: Mapped[int] = mapped_column(default=0)
    last_status_code: Mapped[int | None] = mapped_column(default=None)
    last_error: Mapped[str] = mapped_column(Text, default="")
    response_excerpt: Mapped[str] = mapped_column(Text, default="")
    next_attempt_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
