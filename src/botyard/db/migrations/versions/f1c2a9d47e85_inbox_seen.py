"""inbox: chat_session.operator_seen_at, when an operator last opened the conversation (its unread messages are
the visitor's ones written after it)

Revision ID: f1c2a9d47e85
Revises: 230ca9c40e52
Create Date: 2026-12-09 09:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from botyard.db.base import UTCDateTime

revision: str = "f1c2a9d47e85"
down_revision: str | None = "230ca9c40e52"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("chat_session", sa.Column("operator_seen_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    op.drop_column("chat_session", "operator_seen_at")
