"""operator away: a person who takes conversations says whether they are there (account_user.away)

Revision ID: c6f3a8d1e2b7
Revises: b3d9e6a1f047
Create Date: 2026-11-28 12:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "c6f3a8d1e2b7"
down_revision: str | None = "b3d9e6a1f047"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("account_user") as batch:
        batch.add_column(sa.Column("away", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("account_user") as batch:
        batch.drop_column("away")
