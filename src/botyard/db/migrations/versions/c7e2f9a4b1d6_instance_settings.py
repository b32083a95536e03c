"""instance settings changed in the dashboard (one row; secrets encrypted)

Revision ID: c7e2f9a4b1d6
Revises: c9f4a2e7d813
Create Date: 2026-11-28 12:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "c7e2f9a4b1d6"
down_revision: str | None = "c9f4a2e7d813"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "instance_settings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("values", sa.JSON(), nullable=False),
        sa.Column("secrets", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("updated_by", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instance_settings")),
    )
    # The one row exists from the start, so that a change locks it (`FOR UPDATE`) rather than racing to insert it.
    table = sa.table(
        "instance_settings",
        sa.column("id", sa.Integer()),
        sa.column("values", sa.JSON()),
        sa.column("secrets", sa.JSON()),
        sa.column("version", sa.Integer()),
        sa.column("updated_at", sa.DateTime()),
    )
    now = datetime.now(UTC).replace(tzinfo=None)
    op.bulk_insert(table, [{"id": 1, "values": {}, "secrets": {}, "version": 0, "updated_at": now}])


def downgrade() -> None:
    op.drop_table("instance_settings")
