from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, utcnow


class ChatbotEvent(Base):
    """Something an operator's client wants to hear about (a session asking for a person, a user message in a
    flagged or live session, a live chat starting or ending), in the order it happened.

    Written in the transaction of what it reports, so the event exists exactly when that does; the per-chatbot event
    stream reads the rows after the last id it sent, which works the same for every worker process and machine.
    """

    __tablename__ = "chatbot_event"
    __table_args__ = (
        Index("ix_chatbot_event_chatbot", "chatbot_uuid", "id"),
        Index("ix_chatbot_event_session", "session_uuid", "id"),  # the widget follows one session
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True)
    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"))
    session_uuid: Mapped[str] = mapped_column(ForeignKey("chat_session.uuid", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
