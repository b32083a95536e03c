"""What a support team keeps beside its conversations: canned replies, private notes, and what each person has read."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk, utcnow


class CannedReply(UuidPk, Timestamps, Base):
    """A reply the team writes once and inserts with its shortcut (`/shortcut` in the reply box), per account."""

    __tablename__ = "canned_reply"
    __table_args__ = (UniqueConstraint("account_uuid", "shortcut", name="uq_canned_reply_shortcut"),)

    account_uuid: Mapped[str] = mapped_column(ForeignKey("account.uuid", ondelete="CASCADE"))
    shortcut: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)


class ConversationNote(UuidPk, Base):
    """A private note in a conversation: the team's, never the customer's (no transcript row, no event the widget or
    a channel hears)."""

    __tablename__ = "conversation_note"

    session_uuid: Mapped[str] = mapped_column(ForeignKey("chat_session.uuid", ondelete="CASCADE"), index=True)
    author_uuid: Mapped[str | None] = mapped_column(ForeignKey("account_user.uuid", ondelete="SET NULL"), default=None)
    author_name: Mapped[str] = mapped_column(Text, default="", server_default="")
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConversationRead(Base):
    """When one person last read a conversation: the customer's messages after it are their unread ones."""

    __tablename__ = "conversation_read"

    session_uuid: Mapped[str] = mapped_column(ForeignKey("chat_session.uuid", ondelete="CASCADE"), primary_key=True)
    user_uuid: Mapped[str] = mapped_column(ForeignKey("account_user.uuid", ondelete="CASCADE"), primary_key=True)
    seen_at: Mapped[datetime] = mapped_column(default=utcnow)
