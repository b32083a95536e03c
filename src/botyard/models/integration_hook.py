"""Zapier's and Make's subscriptions to a chatbot's events (REST hooks): where each platform asked to be told of
one kind of event, until it unsubscribes (a Zap turned off, a Make scenario deleted)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow


class IntegrationHook(UuidPk, Base):
    """One subscription: `platform` (`zapier`, `make`) is told of `event` at `target_url`."""

    __tablename__ = "integration_hook"
    __table_args__ = (Index("ix_integration_hook_chatbot_event", "chatbot_uuid", "event"),)

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"))
    platform: Mapped[str] = mapped_column(String(16))
    event: Mapped[str] = mapped_column(String(64))
    target_url: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
