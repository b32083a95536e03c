from __future__ import annotations

from typing import Any

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk


class Agent(UuidPk, Timestamps, Base):
    """An agent of a chatbot. Type-specific settings live in `meta` (model, temperature, bias, tags...)."""

    __tablename__ = "agent"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(Text)
    type: Mapped[str] = mapped_column(String(32))
    description: Mapped[str] = mapped_column(Text, default="")
    prompt: Mapped[str] = mapped_column(Text, default="")
    enabled: Mapped[bool] = mapped_column(default=False)
    use_all_sources: Mapped[bool] = mapped_column(default=False)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    variables: Mapped[list[Any]] = mapped_column(default=list)
    human_escalation_settings: Mapped[dict[str, Any] | None] = mapped_column(default=None)


class AgentDataSource(Base):
    """The data sources an agent answers from when it does not use all of them."""

    __tablename__ = "agent_data_source"

    agent_uuid: Mapped[str] = mapped_column(ForeignKey("agent.uuid", ondelete="CASCADE"), primary_key=True)
    data_source_uuid: Mapped[str] = mapped_column(
        ForeignKey("data_source.uuid", ondelete="CASCADE"), primary_key=True, index=True
    )
    position: Mapped[int] = mapped_column(default=0)
