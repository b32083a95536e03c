"""Accounts, their API keys, chatbots, agents and tool functions: tables of the initial migration
(e527efbf7301), frozen (see the package)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import botyard.db.base


def create_account() -> None:
    op.create_table(
        "account",
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_account")),
        sa.UniqueConstraint("email", name=op.f("uq_account_email")),
    )


def drop_account() -> None:
    op.drop_table("account")


def create_api_key() -> None:
    op.create_table(
        "api_key",
        sa.Column("account_uuid", sa.String(length=32), nullable=False),
        sa.Column("prefix", sa.String(length=32), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", botyard.db.base.UTCDateTime(), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_uuid"], ["account.uuid"], name=op.f("fk_api_key_account_uuid_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_api_key")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_api_key_key_hash")),
        sa.UniqueConstraint("prefix", name=op.f("uq_api_key_prefix")),
    )
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_key_account_uuid"), ["account_uuid"], unique=False)


def drop_api_key() -> None:
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_key_account_uuid"))

    op.drop_table("api_key")


def create_chatbot() -> None:
    op.create_table(
        "chatbot",
        sa.Column("account_uuid", sa.String(length=32), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("rate_limit_messages", sa.Integer(), nullable=False),
        sa.Column("rate_limit_seconds", sa.Integer(), nullable=False),
        sa.Column("rate_limit_message", sa.Text(), nullable=False),
        sa.Column("show_citations", sa.Boolean(), nullable=False),
        sa.Column("visibility", sa.String(length=16), nullable=False),
        sa.Column("knowledge_version", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_uuid"], ["account.uuid"], name=op.f("fk_chatbot_account_uuid_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_chatbot")),
    )
    with op.batch_alter_table("chatbot", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chatbot_account_uuid"), ["account_uuid"], unique=False)
        batch_op.create_index(batch_op.f("ix_chatbot_created_at"), ["created_at"], unique=False)


def drop_chatbot() -> None:
    with op.batch_alter_table("chatbot", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chatbot_created_at"))
        batch_op.drop_index(batch_op.f("ix_chatbot_account_uuid"))

    op.drop_table("chatbot")


def create_agent() -> None:
    op.create_table(
        "agent",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("use_all_sources", sa.Boolean(), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.Column("variables", sa.JSON(), nullable=False),
        sa.Column("human_escalation_settings", sa.JSON(), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"], ["chatbot.uuid"], name=op.f("fk_agent_chatbot_uuid_chatbot"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_agent")),
    )
    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_chatbot_uuid"), ["chatbot_uuid"], unique=False)
        batch_op.create_index(batch_op.f("ix_agent_created_at"), ["created_at"], unique=False)


def drop_agent() -> None:
    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_created_at"))
        batch_op.drop_index(batch_op.f("ix_agent_chatbot_uuid"))

    op.drop_table("agent")


def create_tool_function() -> None:
    op.create_table(
        "tool_function",
        sa.Column("agent_uuid", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("external_url", sa.Text(), nullable=False),
        sa.Column("method", sa.String(length=8), nullable=False),
        sa.Column("headers", sa.JSON(), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_uuid"], ["agent.uuid"], name=op.f("fk_tool_function_agent_uuid_agent"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_tool_function")),
    )
    with op.batch_alter_table("tool_function", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tool_function_agent_uuid"), ["agent_uuid"], unique=False)
        batch_op.create_index(batch_op.f("ix_tool_function_created_at"), ["created_at"], unique=False)


def drop_tool_function() -> None:
    with op.batch_alter_table("tool_function", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tool_function_created_at"))
        batch_op.drop_index(batch_op.f("ix_tool_function_agent_uuid"))

    op.drop_table("tool_function")
