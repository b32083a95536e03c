"""contacts and the team inbox: contacts and their identities; a conversation's status, assignee, snooze,
resolution and the visitor's page; canned replies, private notes, what each person read

Revision ID: c36496d3db01
Revises: 554bf14a4508
Create Date: 2026-12-03 16:57:43.375905
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "c36496d3db01"
down_revision: str | None = "554bf14a4508"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    _contacts()
    _canned_replies()
    _notes_and_reads()
    _chat_session()


def _canned_replies() -> None:
    op.create_table(
        "canned_reply",
        sa.Column("account_uuid", sa.String(length=32), nullable=False),
        sa.Column("shortcut", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_uuid"], ["account.uuid"], name=op.f("fk_canned_reply_account_uuid_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_canned_reply")),
        sa.UniqueConstraint("account_uuid", "shortcut", name="uq_canned_reply_shortcut"),
    )
    with op.batch_alter_table("canned_reply", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_canned_reply_created_at"), ["created_at"], unique=False)


def _contacts() -> None:
    op.create_table(
        "contact",
        sa.Column("account_uuid", sa.String(length=32), nullable=False),
        sa.Column("name", sa.Text(), server_default="", nullable=False),
        sa.Column("email", sa.String(length=320), server_default="", nullable=False),
        sa.Column("phone", sa.String(length=32), server_default="", nullable=False),
        sa.Column("note", sa.Text(), server_default="", nullable=False),
        sa.Column("attributes", sa.JSON(), nullable=False),
        sa.Column("last_seen_at", botyard.db.base.UTCDateTime(), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_uuid"], ["account.uuid"], name=op.f("fk_contact_account_uuid_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_contact")),
    )
    with op.batch_alter_table("contact", schema=None) as batch_op:
        batch_op.create_index("ix_contact_account_seen", ["account_uuid", "last_seen_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_contact_created_at"), ["created_at"], unique=False)

    op.create_table(
        "contact_identity",
        sa.Column("contact_uuid", sa.String(length=32), nullable=False),
        sa.Column("account_uuid", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("value", sa.String(length=255), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_uuid"],
            ["account.uuid"],
            name=op.f("fk_contact_identity_account_uuid_account"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["contact_uuid"],
            ["contact.uuid"],
            name=op.f("fk_contact_identity_contact_uuid_contact"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_contact_identity")),
        sa.UniqueConstraint("account_uuid", "kind", "value", name="uq_contact_identity"),
    )
    with op.batch_alter_table("contact_identity", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_contact_identity_contact_uuid"), ["contact_uuid"], unique=False)


def _notes_and_reads() -> None:
    op.create_table(
        "conversation_note",
        sa.Column("session_uuid", sa.String(length=32), nullable=False),
        sa.Column("author_uuid", sa.String(length=32), nullable=True),
        sa.Column("author_name", sa.Text(), server_default="", nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_uuid"],
            ["account_user.uuid"],
            name=op.f("fk_conversation_note_author_uuid_account_user"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["session_uuid"],
            ["chat_session.uuid"],
            name=op.f("fk_conversation_note_session_uuid_chat_session"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_conversation_note")),
    )
    with op.batch_alter_table("conversation_note", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_conversation_note_session_uuid"), ["session_uuid"], unique=False)

    op.create_table(
        "conversation_read",
        sa.Column("session_uuid", sa.String(length=32), nullable=False),
        sa.Column("user_uuid", sa.String(length=32), nullable=False),
        sa.Column("seen_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_uuid"],
            ["chat_session.uuid"],
            name=op.f("fk_conversation_read_session_uuid_chat_session"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_uuid"],
            ["account_user.uuid"],
            name=op.f("fk_conversation_read_user_uuid_account_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_uuid", "user_uuid", name=op.f("pk_conversation_read")),
    )


def _chat_session() -> None:
    with op.batch_alter_table("chat_session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("contact_uuid", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("visitor_page", sa.Text(), server_default="", nullable=False))
        batch_op.add_column(sa.Column("status", sa.String(length=16), server_default="open", nullable=False))
        batch_op.add_column(sa.Column("snoozed_until", botyard.db.base.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("assignee_uuid", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("resolved_at", botyard.db.base.UTCDateTime(), nullable=True))
        batch_op.create_index(batch_op.f("ix_chat_session_contact_uuid"), ["contact_uuid"], unique=False)
        batch_op.create_index("ix_chat_session_work", ["chatbot_uuid", "status", "assignee_uuid"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_chat_session_contact_uuid_contact"),
            "contact",
            ["contact_uuid"],
            ["uuid"],
            ondelete="SET NULL",
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_chat_session_assignee_uuid_account_user"),
            "account_user",
            ["assignee_uuid"],
            ["uuid"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("chat_session", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_chat_session_assignee_uuid_account_user"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("fk_chat_session_contact_uuid_contact"), type_="foreignkey")
        batch_op.drop_index("ix_chat_session_work")
        batch_op.drop_index(batch_op.f("ix_chat_session_contact_uuid"))
        batch_op.drop_column("resolved_at")
        batch_op.drop_column("assignee_uuid")
        batch_op.drop_column("snoozed_until")
        batch_op.drop_column("status")
        batch_op.drop_column("visitor_page")
        batch_op.drop_column("contact_uuid")

    op.drop_table("conversation_read")
    with op.batch_alter_table("conversation_note", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_conversation_note_session_uuid"))

    op.drop_table("conversation_note")
    with op.batch_alter_table("contact_identity", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_contact_identity_contact_uuid"))

    op.drop_table("contact_identity")
    with op.batch_alter_table("contact", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_contact_created_at"))
        batch_op.drop_index("ix_contact_account_seen")

    op.drop_table("contact")
    with op.batch_alter_table("canned_reply", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_canned_reply_created_at"))

    op.drop_table("canned_reply")
