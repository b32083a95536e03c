from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow


class RateLimitHit(UuidPk, Base):
    """One accepted message of a device, kept while it can still count in a chatbot's sliding window.

    The window lives in the database, not in process memory, so that every worker process (and every machine on a
    shared PostgreSQL) counts the same hits. A device is the widget's device id or, for API traffic, the session.
    """

    __tablename__ = "rate_limit_hit"
    __table_args__ = (Index("ix_rate_limit_hit_device", "chatbot_uuid", "device", "created_at"),)

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"))
    device: Mapped[str] = mapped_column(String(160))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
