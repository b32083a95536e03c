"""api_key made_by_user_uuid: the person who made the key (null for the command line, the setup page, another key)

Existing keys keep null: nobody recorded who made them.

Revision ID: b4e8d1a6c3f9
Revises: d2a7c5e9f3b1
Create Date: 2026-12-01 23:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "b4e8d1a6c3f9"
down_revision: str | None = "d2a7c5e9f3b1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("api_key", sa.Column("made_by_user_uuid", sa.String(length=32), nullable=True))


def downgrade() -> None:
    op.drop_column("api_key", "made_by_user_uuid")
