"""The people of an account: each signs in to the dashboard with an email and a password and has one role."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, false
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow
from botyard.models.kinds import Role

__all__ = ["Role", "User"]


class User(UuidPk, Base):
    """A person of one account. The email is unique across the install (one person, one account); the password is
    stored only as its argon2 hash, a reset link only as the SHA-256 of its token."""

    __tablename__ = "account_user"

    account_uuid: Mapped[str] = mapped_column(ForeignKey("account.uuid", ondelete="CASCADE"), index=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    password_hash: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    reset_hash: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    reset_expires_at: Mapped[datetime | None] = mapped_column(default=None)
    away: Mapped[bool] = mapped_column(default=False, server_default=false())
    """Said by a person who takes conversations: not there now. When every such person of the account is away, a
    visitor who asks for a person is offered the contact form instead of a wait (`people.availability`)."""
