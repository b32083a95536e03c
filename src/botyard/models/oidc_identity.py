"""A person's account at an OpenID provider, linked at their first single sign-on (`identity/sso/`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow


class OidcIdentity(UuidPk, Base):
    """The provider's subject (`iss` + `sub`, which the provider never reassigns) that signs a member in. Once linked,
    the subject decides who signs in, not the email: a changed email at the provider keeps its member, and someone
    given that email later is not let in. One subject per member and provider; deleting the member deletes it."""

    __tablename__ = "oidc_identity"
    __table_args__ = (
        UniqueConstraint("issuer", "subject"),
        UniqueConstraint("user_uuid", "issuer"),
    )

    user_uuid: Mapped[str] = mapped_column(ForeignKey("account_user.uuid", ondelete="CASCADE"), index=True)
    issuer: Mapped[str] = mapped_column(String(500))
    subject: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_signin_at: Mapped[datetime] = mapped_column(default=utcnow)
