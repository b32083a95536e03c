"""chunk passage_vectors: one vector per passage of the chunk, for the offline answerer's choice of passages

Existing chunks get theirs from the `reembed_source` jobs a starting worker queues (a chunk without passage
vectors counts as not embedded by the current embedder).

Revision ID: 0b5d8e3f1a27
Revises: 7a1e4c9d2f60
Create Date: 2026-11-24 07:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0b5d8e3f1a27"
down_revision: str | None = "7a1e4c9d2f60"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("chunk", sa.Column("passage_vectors", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    op.drop_column("chunk", "passage_vectors")
