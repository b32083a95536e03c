"""search index snapshots shared through the database

Revision ID: d2a7c5e9f3b1
Revises: c7e2f9a4b1d6
Create Date: 2026-11-28 15:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "d2a7c5e9f3b1"
down_revision: str | None = "c7e2f9a4b1d6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "index_snapshot",
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("code_key", sa.String(length=16), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("signature", sa.String(length=64), nullable=True),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"],
            ["chatbot.uuid"],
            name=op.f("fk_index_snapshot_chatbot_uuid_chatbot"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_index_snapshot")),
    )
    op.create_index("ix_index_snapshot_chatbot_key_version", "index_snapshot", ["chatbot_uuid", "code_key", "version"])
    op.create_table(
        "index_snapshot_piece",
        sa.Column("snapshot_uuid", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["snapshot_uuid"],
            ["index_snapshot.uuid"],
            name=op.f("fk_index_snapshot_piece_snapshot_uuid_index_snapshot"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("snapshot_uuid", "seq", name=op.f("pk_index_snapshot_piece")),
    )


def downgrade() -> None:
    op.drop_table("index_snapshot_piece")
    op.drop_index("ix_index_snapshot_chatbot_key_version", table_name="index_snapshot")
    op.drop_table("index_snapshot")
