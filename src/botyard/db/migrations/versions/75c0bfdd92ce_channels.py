"""channels: a chatbot's channels, their events keyed by the provider's id, their replies in order; a session's
channel, external user and thread

Revision ID: 75c0bfdd92ce
Revises: 69f1cf033ff3
Create Date: 2026-12-02 16:27:52.027851
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "75c0bfdd92ce"
down_revision: str | None = "69f1cf033ff3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    _channel()
    _channel_event()
    _channel_reply()
    _chat_session()


def _channel() -> None:
    """A chatbot's channels."""
    op.create_table(
        "channel",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("secrets", sa.JSON(), nullable=False),
        sa.Column("hints", sa.JSON(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("last_sent_at", botyard.db.base.UTCDateTime(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("last_error_at", botyard.db.base.UTCDateTime(), nullable=True),
        sa.Column("poll_offset", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("poll_holder", sa.String(length=64), nullable=True),
        sa.Column("poll_expires_at", botyard.db.base.UTCDateTime(), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"], ["chatbot.uuid"], name=op.f("fk_channel_chatbot_uuid_chatbot"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_channel")),
    )
    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_channel_chatbot_uuid"), ["chatbot_uuid"], unique=False)
        batch_op.create_index(batch_op.f("ix_channel_created_at"), ["created_at"], unique=False)


def _channel_event() -> None:
    """The providers' deliveries, one per provider id."""
    op.create_table(
        "channel_event",
        sa.Column("channel_uuid", sa.String(length=32), nullable=False),
        sa.Column("external_id", sa.String(length=128), nullable=False),
        sa.Column("conversation", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("user_name", sa.Text(), nullable=False),
        sa.Column("thread", sa.String(length=128), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("position", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("received_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_uuid"], ["channel.uuid"], name=op.f("fk_channel_event_channel_uuid_channel"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_channel_event")),
        sa.UniqueConstraint("channel_uuid", "external_id", name="uq_channel_event_external"),
    )
    with op.batch_alter_table("channel_event", schema=None) as batch_op:
        batch_op.create_index("ix_channel_event_conversation", ["channel_uuid", "conversation", "state"], unique=False)
        batch_op.create_index("ix_channel_event_received", ["channel_uuid", "received_at"], unique=False)


def _channel_reply() -> None:
    """The replies to send, in order per conversation."""
    op.create_table(
        "channel_reply",
        sa.Column("channel_uuid", sa.String(length=32), nullable=False),
        sa.Column("conversation", sa.String(length=255), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("session_uuid", sa.String(length=32), nullable=False),
        sa.Column("message_uuid", sa.String(length=32), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("recipient", sa.String(length=128), nullable=False),
        sa.Column("thread", sa.String(length=128), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("parts_sent", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("sent_at", botyard.db.base.UTCDateTime(), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_uuid"], ["channel.uuid"], name=op.f("fk_channel_reply_channel_uuid_channel"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_channel_reply")),
    )
    with op.batch_alter_table("channel_reply", schema=None) as batch_op:
        batch_op.create_index(
            "ix_channel_reply_conversation", ["channel_uuid", "conversation", "sequence"], unique=False
        )


def _chat_session() -> None:
    """A session's channel, external user and thread."""
    with op.batch_alter_table("chat_session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("channel_uuid", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("channel_user", sa.String(length=128), server_default="", nullable=False))
        batch_op.add_column(sa.Column("channel_user_name", sa.Text(), server_default="", nullable=False))
        batch_op.add_column(sa.Column("channel_thread", sa.String(length=128), server_default="", nullable=False))
        batch_op.create_index(
            "ix_chat_session_channel", ["channel_uuid", "channel_user", "channel_thread", "modified_at"], unique=False
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_chat_session_channel_uuid_channel"),
            "channel",
            ["channel_uuid"],
            ["uuid"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    # ### commands auto generated by Alembic - please adjust! ###
    with op.batch_alter_table("chat_session", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_chat_session_channel_uuid_channel"), type_="foreignkey")
        batch_op.drop_index("ix_chat_session_channel")
        batch_op.drop_column("channel_thread")
        batch_op.drop_column("channel_user_name")
        batch_op.drop_column("channel_user")
        batch_op.drop_column("channel_uuid")

    with op.batch_alter_table("channel_reply", schema=None) as batch_op:
        batch_op.drop_index("ix_channel_reply_conversation")

    op.drop_table("channel_reply")
    with op.batch_alter_table("channel_event", schema=None) as batch_op:
        batch_op.drop_index("ix_channel_event_received")
        batch_op.drop_index("ix_channel_event_conversation")

    op.drop_table("channel_event")
    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_channel_created_at"))
        batch_op.drop_index(batch_op.f("ix_channel_chatbot_uuid"))

    op.drop_table("channel")
    # ### end Alembic commands ###
