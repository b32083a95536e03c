from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow


class UserSession(UuidPk, Base):
    """A signed-in browser: the cookie's token and the token its requests echo against cross-site forgery, both
    stored only as their SHA-256. Deleting the row signs that browser out at once."""

    __tablename__ = "user_session"

    user_uuid: Mapped[str] = mapped_column(ForeignKey("account_user.uuid", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    csrf_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()
