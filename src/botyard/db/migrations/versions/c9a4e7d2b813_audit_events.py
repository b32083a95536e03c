"""audit log: who changed what in an account, when and from where (audit_event)

Revision ID: c9a4e7d2b813
Revises: c6f3a8d1e2b7
Create Date: 2026-11-28 12:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "c9a4e7d2b813"
down_revision: str | None = "c6f3a8d1e2b7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = botyard.db.base.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "audit_event",
        sa.Column("account_uuid", sa.String(length=32), nullable=False),
        sa.Column("at", _TIME(), nullable=False),
        sa.Column("actor_user_uuid", sa.String(length=32), nullable=True),
        sa.Column("actor_email", sa.String(length=320), nullable=False),
        sa.Column("actor_key_prefix", sa.String(length=32), nullable=False),
        sa.Column("actor_name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("object_type", sa.String(length=32), nullable=False),
        sa.Column("object_uuid", sa.String(length=64), nullable=False),
        sa.Column("summary", sa.String(length=300), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("user_agent", sa.String(length=200), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_uuid"], ["account.uuid"], name=op.f("fk_audit_event_account_uuid_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_audit_event")),
    )
    with op.batch_alter_table("audit_event", schema=None) as batch_op:
        batch_op.create_index("ix_audit_event_account_uuid_at", ["account_uuid", "at"], unique=False)
        batch_op.create_index(batch_op.f("ix_audit_event_at"), ["at"], unique=False)


def downgrade() -> None:
    op.drop_table("audit_event")
