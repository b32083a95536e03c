from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow


class Invitation(UuidPk, Base):
    """An invitation by link to join an account with a role; the link's token is stored only as its SHA-256. It
    works once (`accepted_at`) and until `expires_at`."""

    __tablename__ = "invitation"

    account_uuid: Mapped[str] = mapped_column(ForeignKey("account.uuid", ondelete="CASCADE"), index=True)
    email: Mapped[str] = mapped_column(String(320))
    role: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()
    accepted_at: Mapped[datetime | None] = mapped_column(default=None)
