"""crawl_page.content_sha256: the hash of the bytes a crawl stored for a page, so that another address serving the
same bytes (`/` and `/index.html`) is skipped instead of stored twice

Revision ID: f1c7b2e94d38
Revises: f1c2a9d47e85
Create Date: 2026-12-04 09:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "f1c7b2e94d38"
down_revision: str | None = "f1c2a9d47e85"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("crawl_page", sa.Column("content_sha256", sa.String(length=64), nullable=True))
    op.create_index("ix_crawl_page_content", "crawl_page", ["content_sha256"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_crawl_page_content", table_name="crawl_page")
    op.drop_column("crawl_page", "content_sha256")
