from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, utcnow

SINGLETON = 1
"""The id of the one row: the settings belong to the instance, not to an account."""


class InstanceSettings(Base):
    """The settings the instance's owner changed in the dashboard (`botyard.service_settings`): one row for the
    whole instance, written whole, so a change is one statement and never half made. What is not here (and what the
    environment sets) follows `Settings`."""

    __tablename__ = "instance_settings"

    id: Mapped[int] = mapped_column(primary_key=True, default=SINGLETON)
    values: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """Plain settings by their `Settings` field name (`egress_allowlist` -> `["10.0.0.0/8"]`)."""
    secrets: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """Secret settings by field name, each a Fernet token (`service_settings/cipher.py`); never the plain value."""
    version: Mapped[int] = mapped_column(default=0)
    """Raised by every change: what the other processes compare to know they must rebuild."""
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_by: Mapped[str | None] = mapped_column(String(32), default=None)
    """The person who saved last (a user uuid; None for an API key)."""
