from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, Text, true
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, utcnow


class HandoffSettings(Base):
    """What happens when a visitor of a chatbot asks for a person: whom to tell by email, and when people are there
    (office hours). One row per chatbot, created on the first update; a chatbot without one tells nobody by email
    and is always open (`botyard.chatbots.handoff`)."""

    __tablename__ = "handoff_settings"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), primary_key=True)
    notify_emails: Mapped[list[str]] = mapped_column(default=list)
    """The operators' addresses that hear of a waiting visitor and of a message left after hours."""
    office_hours_enabled: Mapped[bool] = mapped_column(default=False)
    """False: a person is always promised (no schedule)."""
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    """The IANA name the week's times are read in (`Europe/Paris`)."""
    week: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """Weekday (`monday`...) to its open intervals, `[["09:00", "12:30"], ["13:30", "17:00"]]` (end may be `24:00`)."""
    after_hours_message: Mapped[str] = mapped_column(Text, default="")
    """The reply to a visitor who asks for a person after hours (empty: the default of `botyard.chatbots.handoff`)."""
    hand_off_requests: Mapped[bool] = mapped_column(default=True, server_default=true())
    """True (the default): a visitor who asks for a person is handed to the account's people who take conversations
    even when the chatbot has no human-escalation agent (`answering.routing.supervisor.BUILT_IN_HAND_OFF`)."""
    modified_at: Mapped[datetime] = mapped_column(default=utcnow)
