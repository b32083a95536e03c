"""handoff_settings.hand_off_requests: a visitor who asks for a person is handed to the account's people even
without a human-escalation agent (on by default, existing chatbots included)

Revision ID: 31d3bd20e2cc
Revises: b4e8d1a6c3f9
Create Date: 2026-12-01 23:14:40.414646
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "31d3bd20e2cc"
down_revision: str | None = "b4e8d1a6c3f9"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "handoff_settings", sa.Column("hand_off_requests", sa.Boolean(), server_default=sa.true(), nullable=False)
    )


def downgrade() -> None:
    with op.batch_alter_table("handoff_settings") as batch_op:  # SQLite drops a column by copying the table
        batch_op.drop_column("hand_off_requests")
