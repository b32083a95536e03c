from __future__ import annotations

from typing import Any

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk


class ToolFunction(UuidPk, Timestamps, Base):
    """An owner-configured HTTP call an agent may make; the model only fills `parameters`."""

    __tablename__ = "tool_function"

    agent_uuid: Mapped[str] = mapped_column(ForeignKey("agent.uuid", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    description: Mapped[str] = mapped_column(Text, default="")
    enabled: Mapped[bool] = mapped_column(default=True)
    external_url: Mapped[str] = mapped_column(Text)
    method: Mapped[str] = mapped_column(String(8), default="GET")
    headers: Mapped[dict[str, Any]] = mapped_column(default=dict)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    parameters: Mapped[dict[str, Any]] = mapped_column(default=dict)
