"""single sign-on: the OpenID provider's subject (iss + sub) linked to a member (oidc_identity)

Revision ID: c9f4a2e7d813
Revises: c9a4e7d2b813
Create Date: 2026-11-28 12:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "c9f4a2e7d813"
down_revision: str | None = "c9a4e7d2b813"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = botyard.db.base.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "oidc_identity",
        sa.Column("user_uuid", sa.String(length=32), nullable=False),
        sa.Column("issuer", sa.String(length=500), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.Column("last_signin_at", _TIME(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_uuid"],
            ["account_user.uuid"],
            name=op.f("fk_oidc_identity_user_uuid_account_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_oidc_identity")),
        sa.UniqueConstraint("issuer", "subject", name=op.f("uq_oidc_identity_issuer_subject")),
        sa.UniqueConstraint("user_uuid", "issuer", name=op.f("uq_oidc_identity_user_uuid_issuer")),
    )
    with op.batch_alter_table("oidc_identity", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_oidc_identity_user_uuid"), ["user_uuid"], unique=False)


def downgrade() -> None:
    op.drop_table("oidc_identity")
