from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, utcnow


class MessageFeedback(Base):
    """The end user's verdict on one answer (on the wire: the message's `feedback_json`); giving it again replaces it.

    A table of its own rather than keys in `message.meta`: the owner lists a chatbot's feedback newest first and by
    rating, which needs plain indexed columns on both databases, and `meta_json` stays what the answer wrote.
    `chatbot_uuid` repeats the message's chatbot so that the list needs no walk through the sessions.
    """

    __tablename__ = "message_feedback"
    __table_args__ = (Index("ix_message_feedback_chatbot", "chatbot_uuid", "created_at"),)

    message_uuid: Mapped[str] = mapped_column(ForeignKey("message.uuid", ondelete="CASCADE"), primary_key=True)
    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"))
    rating: Mapped[str] = mapped_column(String(8))
    comment: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    """When the current verdict was given (a replaced verdict's time is the replacement's)."""
