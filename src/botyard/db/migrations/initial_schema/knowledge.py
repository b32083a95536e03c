"""Data sources, their tags, files and chunks, and which agent answers from which source: tables of the
initial migration (e527efbf7301), frozen (see the package)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import botyard.db.base


def create_data_source() -> None:
    op.create_table(
        "data_source",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=64), nullable=False),
        sa.Column("file_name", sa.Text(), nullable=False),
        sa.Column("file_size", sa.BigInteger(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.Column("dedupe_key", sa.String(length=128), nullable=True),
        sa.Column("content_hash", sa.String(length=64), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"], ["chatbot.uuid"], name=op.f("fk_data_source_chatbot_uuid_chatbot"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_data_source")),
        sa.UniqueConstraint("chatbot_uuid", "dedupe_key", name=op.f("uq_data_source_chatbot_uuid_dedupe_key")),
    )
    with op.batch_alter_table("data_source", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_data_source_chatbot_uuid"), ["chatbot_uuid"], unique=False)
        batch_op.create_index(batch_op.f("ix_data_source_created_at"), ["created_at"], unique=False)


def drop_data_source() -> None:
    with op.batch_alter_table("data_source", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_data_source_created_at"))
        batch_op.drop_index(batch_op.f("ix_data_source_chatbot_uuid"))

    op.drop_table("data_source")


def create_source_tag() -> None:
    op.create_table(
        "source_tag",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("color", sa.String(length=7), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"], ["chatbot.uuid"], name=op.f("fk_source_tag_chatbot_uuid_chatbot"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_source_tag")),
    )
    with op.batch_alter_table("source_tag", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_source_tag_chatbot_uuid"), ["chatbot_uuid"], unique=False)
        batch_op.create_index(batch_op.f("ix_source_tag_created_at"), ["created_at"], unique=False)


def drop_source_tag() -> None:
    with op.batch_alter_table("source_tag", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_source_tag_created_at"))
        batch_op.drop_index(batch_op.f("ix_source_tag_chatbot_uuid"))

    op.drop_table("source_tag")


def create_agent_data_source() -> None:
    op.create_table(
        "agent_data_source",
        sa.Column("agent_uuid", sa.String(length=32), nullable=False),
        sa.Column("data_source_uuid", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_uuid"], ["agent.uuid"], name=op.f("fk_agent_data_source_agent_uuid_agent"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["data_source_uuid"],
            ["data_source.uuid"],
            name=op.f("fk_agent_data_source_data_source_uuid_data_source"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("agent_uuid", "data_source_uuid", name=op.f("pk_agent_data_source")),
    )
    with op.batch_alter_table("agent_data_source", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_data_source_data_source_uuid"), ["data_source_uuid"], unique=False)


def drop_agent_data_source() -> None:
    with op.batch_alter_table("agent_data_source", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_data_source_data_source_uuid"))

    op.drop_table("agent_data_source")


def create_chunk() -> None:
    op.create_table(
        "chunk",
        sa.Column("data_source_uuid", sa.String(length=32), nullable=False),
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("heading", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"], ["chatbot.uuid"], name=op.f("fk_chunk_chatbot_uuid_chatbot"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["data_source_uuid"],
            ["data_source.uuid"],
            name=op.f("fk_chunk_data_source_uuid_data_source"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_chunk")),
    )
    with op.batch_alter_table("chunk", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chunk_chatbot_uuid"), ["chatbot_uuid"], unique=False)
        batch_op.create_index("ix_chunk_source_position", ["data_source_uuid", "position"], unique=False)


def drop_chunk() -> None:
    with op.batch_alter_table("chunk", schema=None) as batch_op:
        batch_op.drop_index("ix_chunk_source_position")
        batch_op.drop_index(batch_op.f("ix_chunk_chatbot_uuid"))

    op.drop_table("chunk")


def create_source_file() -> None:
    op.create_table(
        "source_file",
        sa.Column("data_source_uuid", sa.String(length=32), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["data_source_uuid"],
            ["data_source.uuid"],
            name=op.f("fk_source_file_data_source_uuid_data_source"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("data_source_uuid", name=op.f("pk_source_file")),
    )


def drop_source_file() -> None:
    op.drop_table("source_file")


def create_source_tag_member() -> None:
    op.create_table(
        "source_tag_member",
        sa.Column("tag_uuid", sa.String(length=32), nullable=False),
        sa.Column("data_source_uuid", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["data_source_uuid"],
            ["data_source.uuid"],
            name=op.f("fk_source_tag_member_data_source_uuid_data_source"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tag_uuid"], ["source_tag.uuid"], name=op.f("fk_source_tag_member_tag_uuid_source_tag"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("tag_uuid", "data_source_uuid", name=op.f("pk_source_tag_member")),
    )
    with op.batch_alter_table("source_tag_member", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_source_tag_member_data_source_uuid"), ["data_source_uuid"], unique=False)


def drop_source_tag_member() -> None:
    with op.batch_alter_table("source_tag_member", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_source_tag_member_data_source_uuid"))

    op.drop_table("source_tag_member")
