"""chunk.terms, chunk.terms_tag: a chunk's index terms analysed at ingestion, so that a search index's build joins
them instead of analysing every text again (`retrieval.stored_terms`); chunks written before are analysed at the
build, as they were

Revision ID: a4d2e6c81f37
Revises: e5a1c3d7f902
Create Date: 2026-11-28 09:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a4d2e6c81f37"
down_revision: str | None = "e5a1c3d7f902"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("chunk", sa.Column("terms", sa.Text(), nullable=True))
    op.add_column("chunk", sa.Column("terms_tag", sa.String(length=80), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chunk") as batch:
        batch.drop_column("terms_tag")
        batch.drop_column("terms")
