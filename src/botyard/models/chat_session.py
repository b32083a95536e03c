from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column, validates

from botyard.db.base import Base, Timestamps, UuidPk
from botyard.models.meta import SessionMeta


class ChatSession(UuidPk, Timestamps, Base):
    """A conversation with a chatbot; `meta` holds its variables and flags (read it through `SessionMeta`).

    `modified_at` is the conversation's last activity: every message written into it (a question, its answer, a
    live-chat row) moves it (`chat.conversation`, `ChatSessionRepository.touch`).

    `human_requested` and `live_chat` repeat the flags of `meta` as columns so that the operators' inbox can filter
    in SQL. `meta` stays the one thing written: assigning it sets both columns (`_flags_follow_meta`), so the two
    cannot disagree, whichever code writes the meta.
    """

    __tablename__ = "chat_session"
    __table_args__ = (
        Index("ix_chat_session_flags", "chatbot_uuid", "human_requested", "live_chat"),
        Index("ix_chat_session_activity", "chatbot_uuid", "modified_at"),
        Index("ix_chat_session_channel", "channel_uuid", "channel_user", "channel_thread", "modified_at"),
        Index("ix_chat_session_work", "chatbot_uuid", "status", "assignee_uuid"),
    )

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), index=True)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    human_requested: Mapped[bool] = mapped_column(default=False, server_default=false())
    live_chat: Mapped[bool] = mapped_column(default=False, server_default=false())
    outcome: Mapped[str | None] = mapped_column(String(16), default=None)
    """`resolved`, `unresolved` or `handed_off` (`ConversationOutcome`), by the rules of `answering.turn.outcomes`, as
    of the last answer, verdict or take-over; None while nothing was asked."""
    outcome_reason: Mapped[str | None] = mapped_column(String(24), default=None)
    """Why it is unresolved or handed off (`OutcomeReason`)."""
    channel_uuid: Mapped[str | None] = mapped_column(ForeignKey("channel.uuid", ondelete="SET NULL"), default=None)
    """The channel the conversation is on (None: the widget or the API)."""
    channel_user: Mapped[str] = mapped_column(String(128), default="", server_default="")
    """The external user's id on that channel (Telegram's user id)."""
    channel_user_name: Mapped[str] = mapped_column(Text, default="", server_default="")
    channel_thread: Mapped[str] = mapped_column(String(128), default="", server_default="")
    """The thread within the channel's chat (Telegram: the chat id, a group's or the user's own)."""
    operator_seen_at: Mapped[datetime | None] = mapped_column(default=None)
    """When an operator last opened the conversation in the inbox: the visitor's messages written after it are the
    unread ones (any operator of the account; opening it marks it read for all)."""

    contact_uuid: Mapped[str | None] = mapped_column(
        ForeignKey("contact.uuid", ondelete="SET NULL"), default=None, index=True
    )
    """The person who writes (`contacts`); None for a conversation opened through the API with nothing to know them
    by."""
    visitor_page: Mapped[str] = mapped_column(Text, default="", server_default="")
    """The page the widget's visitor was on when the conversation began."""
    status: Mapped[str] = mapped_column(String(16), default="open", server_default="open")
    """The team's work on it (`ConversationStatus`): open, pending (waiting for the customer), snoozed until
    `snoozed_until`, resolved."""
    snoozed_until: Mapped[datetime | None] = mapped_column(default=None)
    assignee_uuid: Mapped[str | None] = mapped_column(
        ForeignKey("account_user.uuid", ondelete="SET NULL"), default=None
    )
    """The person of the account it is assigned to (None: nobody)."""
    resolved_at: Mapped[datetime | None] = mapped_column(default=None)
    """When a person last resolved it (the team's resolution time); None while it is not resolved."""

    @validates("meta")
    def _flags_follow_meta(self, key: str, meta: dict[str, Any] | None) -> dict[str, Any] | None:
        view = SessionMeta(meta or {})
        self.human_requested = view.human_requested
        self.live_chat = view.live_chat
        return meta
