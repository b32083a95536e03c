"""people of an account: users with roles (account_user), their signed-in browsers (user_session), invitations by
link (invitation); api keys get a name and their last use

Revision ID: b3d9e6a1f047
Revises: b4d8e2f61a93
Create Date: 2026-11-28 09:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "b3d9e6a1f047"
down_revision: str | None = "b4d8e2f61a93"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = botyard.db.base.UTCDateTime


def upgrade() -> None:
    _account_user()
    _user_session()
    _invitation()
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name", sa.String(length=100), server_default="", nullable=False))
        batch_op.add_column(sa.Column("last_used_at", _TIME(), nullable=True))


def _account_user() -> None:
    op.create_table(
        "account_user",
        sa.Column("account_uuid", sa.String(length=32), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.Column("failed_signins", sa.Integer(), server_default="0", nullable=False),
        sa.Column("signin_blocked_until", _TIME(), nullable=True),
        sa.Column("reset_hash", sa.String(length=64), nullable=True),
        sa.Column("reset_expires_at", _TIME(), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_uuid"], ["account.uuid"], name=op.f("fk_account_user_account_uuid_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_account_user")),
        sa.UniqueConstraint("email", name=op.f("uq_account_user_email")),
        sa.UniqueConstraint("reset_hash", name=op.f("uq_account_user_reset_hash")),
    )
    with op.batch_alter_table("account_user", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_account_user_account_uuid"), ["account_uuid"], unique=False)


def _user_session() -> None:
    op.create_table(
        "user_session",
        sa.Column("user_uuid", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("csrf_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.Column("expires_at", _TIME(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_uuid"],
            ["account_user.uuid"],
            name=op.f("fk_user_session_user_uuid_account_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_user_session")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_user_session_token_hash")),
    )
    with op.batch_alter_table("user_session", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_user_session_user_uuid"), ["user_uuid"], unique=False)


def _invitation() -> None:
    op.create_table(
        "invitation",
        sa.Column("account_uuid", sa.String(length=32), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.Column("expires_at", _TIME(), nullable=False),
        sa.Column("accepted_at", _TIME(), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_uuid"], ["account.uuid"], name=op.f("fk_invitation_account_uuid_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_invitation")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_invitation_token_hash")),
    )
    with op.batch_alter_table("invitation", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_invitation_account_uuid"), ["account_uuid"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.drop_column("last_used_at")
        batch_op.drop_column("name")
    op.drop_table("invitation")
    op.drop_table("user_session")
    op.drop_table("account_user")
