"""Chat sessions and their messages: tables of the initial migration (e527efbf7301), frozen (see the package)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import botyard.db.base


def create_chat_session() -> None:
    op.create_table(
        "chat_session",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"], ["chatbot.uuid"], name=op.f("fk_chat_session_chatbot_uuid_chatbot"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_chat_session")),
    )
    with op.batch_alter_table("chat_session", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chat_session_chatbot_uuid"), ["chatbot_uuid"], unique=False)
        batch_op.create_index(batch_op.f("ix_chat_session_created_at"), ["created_at"], unique=False)


def drop_chat_session() -> None:
    with op.batch_alter_table("chat_session", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_session_created_at"))
        batch_op.drop_index(batch_op.f("ix_chat_session_chatbot_uuid"))

    op.drop_table("chat_session")


def create_message() -> None:
    op.create_table(
        "message",
        sa.Column("session_uuid", sa.String(length=32), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("finish_reason", sa.String(length=16), nullable=False),
        sa.Column("cite_data", sa.JSON(), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_uuid"],
            ["chat_session.uuid"],
            name=op.f("fk_message_session_uuid_chat_session"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_message")),
    )
    with op.batch_alter_table("message", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_message_created_at"), ["created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_message_session_uuid"), ["session_uuid"], unique=False)


def drop_message() -> None:
    with op.batch_alter_table("message", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_message_session_uuid"))
        batch_op.drop_index(batch_op.f("ix_message_created_at"))

    op.drop_table("message")
