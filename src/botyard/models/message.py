from __future__ import annotations

from typing import Any

from sqlalchemy import ForeignKey, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk
from botyard.models.kinds import MessageState


class Message(UuidPk, Timestamps, Base):
    """One exchange: the user's query and the answer. `state` is `streaming` until the answer is finalised."""

    __tablename__ = "message"

    session_uuid: Mapped[str] = mapped_column(ForeignKey("chat_session.uuid", ondelete="CASCADE"), index=True)
    query: Mapped[str] = mapped_column(Text)
    response: Mapped[str] = mapped_column(Text, default="")
    finish_reason: Mapped[str] = mapped_column(String(16), default="stop")
    cite_data: Mapped[dict[str, Any]] = mapped_column(default=dict)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    refused: Mapped[bool] = mapped_column(default=False, server_default=false())
    """The user got no answer: the no-answer reply (nothing in the knowledge), attached documents too long, or the
    answer failed. A language model's own refusal in its words is not detected."""
    state: Mapped[str] = mapped_column(String(16), default=MessageState.COMPLETE.value)
    first_byte_ms: Mapped[int | None] = mapped_column(default=None)
    """Milliseconds from the request's arrival to the answer's first text (the analytics' latency); None when no text
    came (a live chat's user message) or for answers stored before it was measured."""
