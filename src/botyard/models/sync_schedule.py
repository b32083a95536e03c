from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base


class SyncSchedule(Base):
    """How often a chatbot's URL sources are checked for changes (`off`, `daily`, `weekly`), and when. One row per
    chatbot, created on the first change; none means `off`."""

    __tablename__ = "sync_schedule"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), primary_key=True)
    schedule: Mapped[str] = mapped_column(String(16), default="off")
    next_run_at: Mapped[datetime | None] = mapped_column(default=None)
    last_run_at: Mapped[datetime | None] = mapped_column(default=None)
    last_summary: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """Pages checked, unchanged, changed, gone and failed in the last run."""
