"""message first_byte_ms: the time to an answer's first text, kept for the analytics

Revision ID: 8d2f6b1c3a94
Revises: b81e4f2d9a63
Create Date: 2026-11-25 01:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8d2f6b1c3a94"
down_revision: str | None = "b81e4f2d9a63"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("message", sa.Column("first_byte_ms", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("message", "first_byte_ms")
