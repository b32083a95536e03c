from __future__ import annotations

from typing import Any

from sqlalchemy import ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk


class ChatSession(UuidPk, Timestamps, Base):
    """A conversation with a chatbot; `meta` holds its variables and flags (initial_variables, ...)."""

    __tablename__ = "chat_session"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), index=True)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
