"""The sign-in attempts counted against one key: an address tried, a client network, or a browser's device cookie."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, utcnow


class SigninAttempt(Base):
    """The count of one key's attempts that have not been forgiven (`identity/signin/throttle/` reads and writes it).

    The key is `address:` and the SHA-256 of a normalised email (whether a member has it or not, and never the
    address itself), `network:` and a client's /24 or /64, or `device:` and a device cookie's id. An attempt is
    counted before its password is checked, so `failures` includes the attempts still being verified.
    """

    __tablename__ = "signin_attempt"

    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    failures: Mapped[int] = mapped_column(default=0)
    """Attempts since the window began that no right password has forgiven (the ones in progress included)."""
    blocked_until: Mapped[datetime | None] = mapped_column(default=None)
    """Until then every attempt of the key answers 429 and costs no verification."""
    window_start: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    """When the count began; a count whose window has passed (and that blocks nothing) starts again at zero."""
