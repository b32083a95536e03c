from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk
from botyard.models.kinds import CrawlPageState, CrawlState


class Crawl(UuidPk, Timestamps, Base):
    """A crawl of one website into a chatbot's URL sources: its settings and state. Its pages are `CrawlPage` rows,
    so a crawl picked up again after a crash goes on where it was."""

    __tablename__ = "crawl"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(Text)
    mode: Mapped[str] = mapped_column(String(16))
    """A `CrawlMode`."""
    scope: Mapped[dict[str, Any]] = mapped_column(default=dict)
    max_pages: Mapped[int] = mapped_column()
    max_depth: Mapped[int] = mapped_column()
    state: Mapped[str] = mapped_column(String(16), default=CrawlState.QUEUED.value)
    """A `CrawlState`: `queued`, `running`, then `done`, `cancelled` or `failed`."""
    reason: Mapped[str] = mapped_column(Text, default="")
    """Why a crawl failed or stopped early (a cap reached)."""
    fetched_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class CrawlPage(Base):
    """A URL a crawl found in scope: `pending` until fetched, then `done` (with its data source) or `failed` (with
    the reason). The unique key makes a page found twice, or again after a crash, one row."""

    __tablename__ = "crawl_page"
    __table_args__ = (
        UniqueConstraint("crawl_uuid", "url_key"),
        Index("ix_crawl_page_pending", "crawl_uuid", "state", "depth", "id"),
        Index("ix_crawl_page_content", "content_sha256"),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True)
    crawl_uuid: Mapped[str] = mapped_column(ForeignKey("crawl.uuid", ondelete="CASCADE"))
    url_key: Mapped[str] = mapped_column(String(64))
    url: Mapped[str] = mapped_column(Text)
    depth: Mapped[int] = mapped_column(default=0)
    state: Mapped[str] = mapped_column(String(16), default=CrawlPageState.PENDING.value)
    """A `CrawlPageState`."""
    reason: Mapped[str] = mapped_column(Text, default="")
    lastmod: Mapped[str | None] = mapped_column(String(64), default=None)
    """The sitemap's `<lastmod>` for the page, as given."""
    content_sha256: Mapped[str | None] = mapped_column(String(64), default=None)
    """SHA-256 of the bytes stored for the page (`done` rows): another address serving the same bytes is skipped."""
    data_source_uuid: Mapped[str | None] = mapped_column(
        ForeignKey("data_source.uuid", ondelete="SET NULL"), default=None
    )
