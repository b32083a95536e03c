"""session flag columns: `human_requested` and `live_chat` of chat_session, backfilled from its meta

Revision ID: 3f0a6c2d9b41
Revises: b106cc00bb51
Create Date: 2026-11-24 04:50:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3f0a6c2d9b41"
down_revision: str | None = "b106cc00bb51"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_FLAGS = ("human_requested", "live_chat")


def _truthy(dialect: str, key: str) -> str:
    """SQL that is true where the session's meta has `key` set to true (the flags are stored as JSON booleans)."""
    if dialect == "postgresql":
        return f"(meta ->> '{key}') = 'true'"
    return f"json_extract(meta, '$.{key}') = 1"


def upgrade() -> None:
    for flag in _FLAGS:
        op.add_column("chat_session", sa.Column(flag, sa.Boolean(), server_default=sa.false(), nullable=False))
    dialect = op.get_bind().dialect.name
    for flag in _FLAGS:
        op.execute(f"UPDATE chat_session SET {flag} = TRUE WHERE {_truthy(dialect, flag)}")  # noqa: S608 (constants)
    op.create_index(
        "ix_chat_session_flags", "chat_session", ["chatbot_uuid", "human_requested", "live_chat"], unique=False
    )


def downgrade() -> None:
    # The flags are still in each session's meta, which the columns only repeated: nothing is lost.
    op.drop_index("ix_chat_session_flags", table_name="chat_session")
    for flag in reversed(_FLAGS):
        op.drop_column("chat_session", flag)
