from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow


class Account(UuidPk, Base):
    """An account holder; every other object belongs to exactly one account."""

    __tablename__ = "account"

    email: Mapped[str] = mapped_column(String(320), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ApiKey(UuidPk, Base):
    """An API key, stored only as its SHA-256; `prefix` names it in listings and for revocation."""

    __tablename__ = "api_key"

    account_uuid: Mapped[str] = mapped_column(ForeignKey("account.uuid", ondelete="CASCADE"), index=True)
    prefix: Mapped[str] = mapped_column(String(32), unique=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    name: Mapped[str] = mapped_column(String(100), default="")
    last_used_at: Mapped[datetime | None] = mapped_column(default=None)
    """When a request last came with the key, to the minute (written at most once a minute per key)."""
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)
    made_by_user_uuid: Mapped[str | None] = mapped_column(String(32), default=None)
    """The person who made the key from the dashboard; None for one made by the command line, the setup page or
    another key. No foreign key: it outlives the person's removal, so that the keys they left are still known as
    theirs (an admin removing them is offered to revoke those)."""
