"""handoff settings: per chatbot, the operators' notification addresses and the office hours (handoff_settings)

Revision ID: b4d8e2f61a93
Revises: a4d2e6c81f37
Create Date: 2026-11-28 09:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "b4d8e2f61a93"
down_revision: str | None = "a4d2e6c81f37"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "handoff_settings",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("notify_emails", sa.JSON(), nullable=False),
        sa.Column("office_hours_enabled", sa.Boolean(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("week", sa.JSON(), nullable=False),
        sa.Column("after_hours_message", sa.Text(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"],
            ["chatbot.uuid"],
            name=op.f("fk_handoff_settings_chatbot_uuid_chatbot"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("chatbot_uuid", name=op.f("pk_handoff_settings")),
    )


def downgrade() -> None:
    op.drop_table("handoff_settings")
