"""unanswered questions: every refused or low-confidence question, kept for the chatbot's owner

Revision ID: 4e7b2a9c1d05
Revises: f1c7b2e94d38
Create Date: 2026-11-25 00:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "4e7b2a9c1d05"
down_revision: str | None = "f1c7b2e94d38"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "unanswered_question",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("message_uuid", sa.String(length=32), nullable=False),
        sa.Column("session_uuid", sa.String(length=32), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("resolved", sa.Text(), nullable=True),
        sa.Column("reason", sa.String(length=24), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("required", sa.Float(), nullable=True),
        sa.Column("vector", sa.LargeBinary(), nullable=True),
        sa.Column("embedder", sa.String(length=200), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("data_source_uuid", sa.String(length=32), nullable=True),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("resolved_at", botyard.db.base.UTCDateTime(), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"],
            ["chatbot.uuid"],
            name=op.f("fk_unanswered_question_chatbot_uuid_chatbot"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["data_source_uuid"],
            ["data_source.uuid"],
            name=op.f("fk_unanswered_question_data_source_uuid_data_source"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["message_uuid"],
            ["message.uuid"],
            name=op.f("fk_unanswered_question_message_uuid_message"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_unanswered_question")),
        sa.UniqueConstraint("message_uuid", name=op.f("uq_unanswered_question_message_uuid")),
    )
    with op.batch_alter_table("unanswered_question", schema=None) as batch_op:
        batch_op.create_index("ix_unanswered_question_chatbot", ["chatbot_uuid", "status", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("unanswered_question", schema=None) as batch_op:
        batch_op.drop_index("ix_unanswered_question_chatbot")

    op.drop_table("unanswered_question")
