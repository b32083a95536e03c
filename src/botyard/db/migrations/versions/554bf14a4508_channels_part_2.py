"""channels part 2: the receipts of sent messages (delivery and read statuses, email threading), opt-outs (SMS
STOP), what an event and a reply carry beside their text, a listener's state (IMAP), Zapier's and Make's hooks

Revision ID: 554bf14a4508
Revises: 8f3b6d2e4a71
Create Date: 2026-12-03 14:00:25.024094
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "554bf14a4508"
down_revision: str | None = "8f3b6d2e4a71"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    _receipts()
    _opt_outs()
    _hooks()
    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.add_column(sa.Column("poll_state", sa.JSON(), nullable=False, server_default="{}"))
    with op.batch_alter_table("channel_event", schema=None) as batch_op:
        batch_op.add_column(sa.Column("details", sa.JSON(), nullable=False, server_default="{}"))
    with op.batch_alter_table("channel_reply", schema=None) as batch_op:
        batch_op.add_column(sa.Column("details", sa.JSON(), nullable=False, server_default="{}"))


def _receipts() -> None:
    op.create_table(
        "channel_receipt",
        sa.Column("channel_uuid", sa.String(length=32), nullable=False),
        sa.Column("provider_id", sa.String(length=255), nullable=False),
        sa.Column("reply_uuid", sa.String(length=32), nullable=True),
        sa.Column("conversation", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("status_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_uuid"], ["channel.uuid"], name=op.f("fk_channel_receipt_channel_uuid_channel"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_channel_receipt")),
        sa.UniqueConstraint("channel_uuid", "provider_id", name="uq_channel_receipt_provider"),
    )
    with op.batch_alter_table("channel_receipt", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_channel_receipt_reply_uuid"), ["reply_uuid"], unique=False)


def _opt_outs() -> None:
    op.create_table(
        "channel_opt_out",
        sa.Column("channel_uuid", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("opted_out_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_uuid"], ["channel.uuid"], name=op.f("fk_channel_opt_out_channel_uuid_channel"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("channel_uuid", "user_id", name=op.f("pk_channel_opt_out")),
    )


def _hooks() -> None:
    op.create_table(
        "integration_hook",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("event", sa.String(length=64), nullable=False),
        sa.Column("target_url", sa.Text(), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"],
            ["chatbot.uuid"],
            name=op.f("fk_integration_hook_chatbot_uuid_chatbot"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_integration_hook")),
    )
    with op.batch_alter_table("integration_hook", schema=None) as batch_op:
        batch_op.create_index("ix_integration_hook_chatbot_event", ["chatbot_uuid", "event"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("channel_reply", schema=None) as batch_op:
        batch_op.drop_column("details")

    with op.batch_alter_table("channel_event", schema=None) as batch_op:
        batch_op.drop_column("details")

    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.drop_column("poll_state")

    with op.batch_alter_table("channel_receipt", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_channel_receipt_reply_uuid"))

    op.drop_table("channel_receipt")
    op.drop_table("channel_opt_out")
    with op.batch_alter_table("integration_hook", schema=None) as batch_op:
        batch_op.drop_index("ix_integration_hook_chatbot_event")

    op.drop_table("integration_hook")
