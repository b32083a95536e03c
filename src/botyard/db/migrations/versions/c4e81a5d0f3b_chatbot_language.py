"""chatbot language: the language the chatbot speaks to its users (NULL: its knowledge's main language)

Revision ID: c4e81a5d0f3b
Revises: 0b5d8e3f1a27
Create Date: 2026-11-30 09:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "c4e81a5d0f3b"
down_revision: str | None = "0b5d8e3f1a27"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("chatbot", sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    op.drop_column("chatbot", "language")
