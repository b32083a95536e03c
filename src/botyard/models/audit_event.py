"""The audit log: who changed what in an account, when and from where (`botyard.audit` writes and reads it)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow


class AuditEvent(UuidPk, Base):
    """One change (or sign-in) in an account. The actor is kept as it was at the time: a person's uuid and email,
    or an API key's prefix and name; never a secret, never a request's body. Rows older than `BOTYARD_AUDIT_DAYS`
    are pruned."""

    __tablename__ = "audit_event"
    __table_args__ = (Index("ix_audit_event_account_uuid_at", "account_uuid", "at"),)

    account_uuid: Mapped[str] = mapped_column(ForeignKey("account.uuid", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    actor_user_uuid: Mapped[str | None] = mapped_column(String(32), default=None)
    """The person; None for an API key. No foreign key: a removed member's events stay."""
    actor_email: Mapped[str] = mapped_column(String(320), default="")
    actor_key_prefix: Mapped[str] = mapped_column(String(32), default="")
    actor_name: Mapped[str] = mapped_column(String(200), default="")
    """The person's name, or the key's."""
    role: Mapped[str] = mapped_column(String(16), default="")
    action: Mapped[str] = mapped_column(String(32))
    object_type: Mapped[str] = mapped_column(String(32))
    object_uuid: Mapped[str] = mapped_column(String(64), default="")
    summary: Mapped[str] = mapped_column(String(300), default="")
    address: Mapped[str] = mapped_column(String(64), default="")
    user_agent: Mapped[str] = mapped_column(String(200), default="")
