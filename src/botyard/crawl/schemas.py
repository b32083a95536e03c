from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints
from typing_extensions import TypedDict

from botyard.models.kinds import CrawlMode, CrawlPageState, CrawlState
from botyard.schemas import RequestModel

MAX_PAGES = 10_000
Pattern = Annotated[str, StringConstraints(min_length=1, max_length=300)]


class CrawlScope(BaseModel):
    same_host: bool = Field(default=True, description="Only the start URL's host.")
    path_prefix: Annotated[str, StringConstraints(max_length=500, pattern=r"^(/.*)?$")] | None = Field(
        default=None, description="Only paths starting with this, e.g. `/docs/`."
    )
    include: list[Pattern] = Field(
        default_factory=list, max_length=50, description="Glob patterns on path and query (`/docs/*`); none: all."
    )
    exclude: list[Pattern] = Field(default_factory=list, max_length=50, description="Glob patterns to leave out.")


class CrawlCreate(RequestModel):
    url: Annotated[str, StringConstraints(min_length=1, max_length=2048, strip_whitespace=True)] = Field(
        description="Where to start: a page (`links`), or the site, its `sitemap.xml` or a sitemap index (`sitemap`)."
    )
    mode: CrawlMode = Field(
        default=CrawlMode.LINKS, description="`sitemap`: the pages the site's sitemaps list; `links`: follow links."
    )
    scope: CrawlScope = Field(default_factory=CrawlScope)
    max_pages: int = Field(default=500, ge=1, le=MAX_PAGES)
    max_depth: int = Field(default=5, ge=0, le=50, description="Link hops from the start page (`links` mode).")


class CrawlFailure(TypedDict):
    url: str
    state: CrawlPageState
    """`failed`, or `skipped` (already a source of the chatbot, another address of a stored page, `noindex`, not
    fetched after a cap)."""
    reason: str
    data_source_uuid: str | None
    """The source the page already is (`skipped` as already a source or as another address of a stored page)."""


class Crawl(TypedDict):
    uuid: str
    chatbot_uuid: str
    url: str
    mode: CrawlMode
    scope: dict[str, object]
    max_pages: int
    max_depth: int
    state: CrawlState
    reason: str
    pages_found: int
    pages_done: int
    """Pages stored as new sources (a page the chatbot held already is skipped, not done)."""
    pages_failed: int
    pages_skipped: int
    failures: list[CrawlFailure]
    created_at: str
    modified_at: str
    finished_at: str | None
