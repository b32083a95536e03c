"""conversation outcome: chat_session.outcome and outcome_reason, kept by the rules of `answering.turn.outcomes` as each
answer is stored, a verdict given, or a person takes over

Revision ID: c7e3f9a2b518
Revises: 8d2f6b1c3a94
Create Date: 2026-11-28 04:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "c7e3f9a2b518"
down_revision: str | None = "8d2f6b1c3a94"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat_session") as table:
        table.add_column(sa.Column("outcome", sa.String(16), nullable=True))
        table.add_column(sa.Column("outcome_reason", sa.String(24), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat_session") as table:
        table.drop_column("outcome_reason")
        table.drop_column("outcome")
