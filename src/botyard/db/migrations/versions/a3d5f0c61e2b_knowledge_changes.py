"""knowledge changes: which sources each knowledge version changed

Revision ID: a3d5f0c61e2b
Revises: 167c00cd7b97
Create Date: 2026-11-25 00:55:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a3d5f0c61e2b"
down_revision: str | None = "167c00cd7b97"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # An empty log is right for an existing database: a process with no index builds it whole, as before.
    op.create_table(
        "knowledge_change",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("data_source_uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"],
            ["chatbot.uuid"],
            name=op.f("fk_knowledge_change_chatbot_uuid_chatbot"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("chatbot_uuid", "version", "data_source_uuid", name=op.f("pk_knowledge_change")),
    )


def downgrade() -> None:
    op.drop_table("knowledge_change")
