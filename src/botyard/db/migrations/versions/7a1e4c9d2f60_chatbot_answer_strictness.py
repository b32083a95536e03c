"""chatbot answer_strictness: how much evidence the relevance decision asks for (loose, balanced, strict)

Revision ID: 7a1e4c9d2f60
Revises: 3f0a6c2d9b41
Create Date: 2026-11-24 07:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7a1e4c9d2f60"
down_revision: str | None = "3f0a6c2d9b41"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "chatbot",
        sa.Column("answer_strictness", sa.String(length=16), server_default="balanced", nullable=False),
    )


def downgrade() -> None:
    op.drop_column("chatbot", "answer_strictness")
