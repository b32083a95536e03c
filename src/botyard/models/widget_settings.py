from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, utcnow


class WidgetSettings(Base):
    """How a chatbot's widget and share page look, and which websites may embed them. One row per chatbot, created
    on the first update; a chatbot without one uses the defaults of `botyard.widget.schemas`."""

    __tablename__ = "widget_settings"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), primary_key=True)
    allowed_origins: Mapped[list[str]] = mapped_column(default=list)
    title: Mapped[str] = mapped_column(Text, default="")
    primary_color: Mapped[str] = mapped_column(String(7))
    background_color: Mapped[str] = mapped_column(String(7))
    text_color: Mapped[str] = mapped_column(String(7))
    welcome_message: Mapped[str] = mapped_column(Text)
    suggested_questions: Mapped[list[str]] = mapped_column(default=list)
    placeholder: Mapped[str] = mapped_column(Text)
    image_hosts: Mapped[list[str]] = mapped_column(default=list)
    modified_at: Mapped[datetime] = mapped_column(default=utcnow)
