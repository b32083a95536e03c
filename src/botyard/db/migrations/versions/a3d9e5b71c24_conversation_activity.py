"""conversations: message.refused, chatbot.conversation_retention_days, an index on a session's last activity,
and the last activity of existing sessions (their `modified_at` never moved with their messages before)

Revision ID: a3d9e5b71c24
Revises: a3d5f0c61e2b
Create Date: 2026-12-02 09:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a3d9e5b71c24"
down_revision: str | None = "a3d5f0c61e2b"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BACKFILL = """
UPDATE chat_session SET modified_at = (
    SELECT MAX(message.modified_at) FROM message WHERE message.session_uuid = chat_session.uuid
)
WHERE EXISTS (
    SELECT 1 FROM message
    WHERE message.session_uuid = chat_session.uuid AND message.modified_at > chat_session.modified_at
)
"""


def upgrade() -> None:
    op.add_column("message", sa.Column("refused", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("chatbot", sa.Column("conversation_retention_days", sa.Integer(), nullable=True))
    op.create_index("ix_chat_session_activity", "chat_session", ["chatbot_uuid", "modified_at"], unique=False)
    op.execute(_BACKFILL)


def downgrade() -> None:
    op.drop_index("ix_chat_session_activity", table_name="chat_session")
    op.drop_column("chatbot", "conversation_retention_days")
    op.drop_column("message", "refused")
