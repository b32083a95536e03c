from __future__ import annotations

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk
from botyard.models.kinds import Visibility


class Chatbot(UuidPk, Timestamps, Base):
    __tablename__ = "chatbot"

    account_uuid: Mapped[str] = mapped_column(ForeignKey("account.uuid", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(Text)
    rate_limit_messages: Mapped[int] = mapped_column(default=20)
    rate_limit_seconds: Mapped[int] = mapped_column(default=240)
    rate_limit_message: Mapped[str] = mapped_column(Text, default="Too many messages")
    show_citations: Mapped[bool] = mapped_column(default=False)
    visibility: Mapped[str] = mapped_column(String(16), default=Visibility.PRIVATE)
    answer_strictness: Mapped[str] = mapped_column(String(16), default="balanced", server_default="balanced")
    """How much evidence the relevance decision asks for (`botyard.retrieval.relevance.Strictness`)."""
    language: Mapped[str | None] = mapped_column(String(8), default=None)
    """The language the chatbot speaks to its users (`botyard.i18n.Language`); None: its knowledge's main language."""
    conversation_retention_days: Mapped[int | None] = mapped_column(default=None)
    """Conversations without activity for this many days are deleted (`chat.history.retention`); None: kept."""
    # Bumped whenever the chatbot's chunks change; in-process search indexes are caches keyed by it.
    knowledge_version: Mapped[int] = mapped_column(default=0)
