"""The people who write to an account's chatbots: a contact is one person, however many channels they use. Each way
a channel knows them (an email address, a phone number in E.164, a Telegram or Slack user id, a widget visitor's
key) is an identity of the contact, unique within the account, so the next conversation on any channel finds them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk, utcnow


class Contact(UuidPk, Timestamps, Base):
    """One person of the account's customers: what they told or a channel tells of them, and what an operator set."""

    __tablename__ = "contact"
    __table_args__ = (Index("ix_contact_account_seen", "account_uuid", "last_seen_at"),)

    account_uuid: Mapped[str] = mapped_column(ForeignKey("account.uuid", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(Text, default="", server_default="")
    email: Mapped[str] = mapped_column(String(320), default="", server_default="")
    phone: Mapped[str] = mapped_column(String(32), default="", server_default="")
    """E.164 (`contacts.phones`)."""
    note: Mapped[str] = mapped_column(Text, default="", server_default="")
    """What the team wrote of them (never shown to the customer)."""
    attributes: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """What else a site or a channel passed in (company, plan, locale): short strings by name."""
    last_seen_at: Mapped[datetime | None] = mapped_column(default=None)
    """When they last wrote, on any channel."""


class ContactIdentity(UuidPk, Base):
    """One way a channel knows a contact: `kind` (`email`, `phone`, `telegram`, `slack`, `messenger`, `instagram`,
    `visitor`, ...) and its `value` there."""

    __tablename__ = "contact_identity"
    __table_args__ = (UniqueConstraint("account_uuid", "kind", "value", name="uq_contact_identity"),)

    contact_uuid: Mapped[str] = mapped_column(ForeignKey("contact.uuid", ondelete="CASCADE"), index=True)
    account_uuid: Mapped[str] = mapped_column(ForeignKey("account.uuid", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(32))
    value: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
