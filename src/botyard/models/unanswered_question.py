from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow
from botyard.models.kinds import UnansweredStatus


class UnansweredQuestion(UuidPk, Base):
    """A question the chatbot did not answer, or answered on weak evidence, kept for its owner: written in the
    answer's own transaction (`answering.turn.finish`), one row per message, until the owner answers or dismisses it.

    `chatbot_uuid` repeats the session's chatbot so that a chatbot's open questions are one indexed range, and
    `vector` keeps the question's vector the search already computed, so grouping them embeds nothing again.
    """

    __tablename__ = "unanswered_question"
    __table_args__ = (Index("ix_unanswered_question_chatbot", "chatbot_uuid", "status", "created_at"),)

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"))
    message_uuid: Mapped[str] = mapped_column(ForeignKey("message.uuid", ondelete="CASCADE"), unique=True)
    session_uuid: Mapped[str] = mapped_column(String(32))
    question: Mapped[str] = mapped_column(Text)
    """As asked."""
    resolved: Mapped[str | None] = mapped_column(Text, default=None)
    """The query that was searched when it differs from the question (a follow-up rewritten with its context)."""
    reason: Mapped[str] = mapped_column(String(24))
    language: Mapped[str | None] = mapped_column(String(16), default=None)
    score: Mapped[float | None] = mapped_column(Float, default=None)
    """The relevance decision's evidence for the best passage; None when nothing was searched."""
    required: Mapped[float | None] = mapped_column(Float, default=None)
    """The evidence the decision asked for."""
    vector: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    """The searched query's vector (`encode_vector`), None when nothing was embedded."""
    embedder: Mapped[str | None] = mapped_column(String(200), default=None)
    """The `Embedder.name` of `vector`: another model's vector is not compared, the question is embedded again."""
    status: Mapped[str] = mapped_column(String(16), default=UnansweredStatus.OPEN.value)
    data_source_uuid: Mapped[str | None] = mapped_column(
        ForeignKey("data_source.uuid", ondelete="SET NULL"), default=None
    )
    """The Q&A source the owner answered it with."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column(default=None)
