"""A crawl's frontier: the `crawl_page` rows of the addresses it has found, each added once, up to `max_pages`.

Rows are added in the transaction of the page (or the sitemap listing) that found them, so a crawl picked up again
after a crash goes on from exactly what was recorded. In memory the frontier keeps only what saves database work:
the url keys that have rows (a link in every page's menu costs no insert attempt) and the rows this run has already
stored under another page's fetch (not fetched again when their turn comes).

A page the chatbot already holds as a URL source that this crawl did not store (added by hand, or by an earlier
crawl) under one of its addresses (the address fetched, where it redirected to, its canonical URL) is skipped
("already a source: ..."), pointing at that source: a crawl adds only new sources, and counts only those as done.

Two addresses of one page that name no canonical URL (`/` and `/index.html`) are told apart only by what they
serve: a page whose bytes equal those of a page the chatbot's crawls already stored under another address is skipped
("same content as ..."), pointing at that page's source.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.crawl.discovery import Listing
from botyard.crawl.repository import CrawlPageRepository
from botyard.crawl.urls import Scope, url_key
from botyard.models import CrawlPage, CrawlPageState
from botyard.sources.service import link_source_at


class Frontier:
    """The frontier of one crawl, as one run of it sees it."""

    def __init__(self, crawl_uuid: str, scope: Scope, max_pages: int) -> None:
        self.crawl_uuid = crawl_uuid
        self.scope = scope
        self.max_pages = max_pages
        self.known: set[str] = set()
        """The url keys the crawl has rows for."""
        self.found = 0
        self.settled: set[int] = set()
        """Pending rows this run stored from another address's fetch (a redirect's target, a canonical URL)."""
        self._content_locks: dict[str, asyncio.Lock] = {}

    def remember(self, keys: set[str]) -> None:
        """The url keys the crawl had rows for when this run started."""
        self.known |= keys
        self.found = len(self.known)

    def is_settled(self, page: CrawlPage) -> bool:
        """Whether `page`, read as pending at the start of its batch, has been stored since by this run."""
        return page.id in self.settled

    async def add_links(self, db: AsyncSession, links: list[str], depth: int) -> None:
        """The in-scope links a page adds, at `depth`, until the crawl has `max_pages` rows."""
        pages = CrawlPageRepository(db)
        for link in links:
            if self.found >= self.max_pages:
                return
            key = url_key(link)
            if key in self.known or not self.scope.admits(link):
                continue
            self.known.add(key)
            self.found += int(
                await pages.add_new(CrawlPage(crawl_uuid=self.crawl_uuid, url_key=key, url=link, depth=depth))
            )

    async def add_listing(self, db: AsyncSession, listing: Listing) -> None:
        """Every in-scope page the sitemaps list (with its `<lastmod>`), and the sitemaps that failed, as failed
        rows (the crawl reports them with its pages)."""
        pages = CrawlPageRepository(db)
        for location, reason in listing.failures:
            failed = CrawlPage(
                crawl_uuid=self.crawl_uuid, url_key=url_key(location), url=location, state=CrawlPageState.FAILED
            )
            failed.reason = reason
            self.found += int(await pages.add_new(failed))
        for url, lastmod in listing.pages:
            if self.found >= self.max_pages:
                break
            if self.scope.admits(url):
                row = CrawlPage(crawl_uuid=self.crawl_uuid, url_key=url_key(url), url=url, lastmod=lastmod)
                self.found += int(await pages.add_new(row))
                self.known.add(row.url_key)

    async def identity_row(self, db: AsyncSession, page: CrawlPage, identity: str) -> CrawlPage | None:
        """The row of the address `page` really is (a redirect's target, its canonical URL), to store the page
        under; None when that page was stored already (`page` is then skipped as the same page)."""
        pages = CrawlPageRepository(db)
        known = await pages.by_key(self.crawl_uuid, url_key(identity))
        if known is None:
            known = CrawlPage(crawl_uuid=self.crawl_uuid, url_key=url_key(identity), url=identity, depth=page.depth)
            await pages.add(known)
            self.known.add(known.url_key)
            self.found += 1
        elif known.state != CrawlPageState.PENDING:
            page.state, page.reason = CrawlPageState.SKIPPED, f"same page as {identity}"
            page.data_source_uuid = known.data_source_uuid
            return None
        else:
            self.settled.add(known.id)  # it may be in this run's batch: stored now, it needs no fetch of its own
        known.lastmod = known.lastmod or page.lastmod
        return known

    async def held_already(self, db: AsyncSession, chatbot_uuid: str, row: CrawlPage, addresses: Iterable[str]) -> bool:
        """Whether the chatbot holds the page as a URL source, under one of its `addresses`, that this crawl did not
        store; `row` is then skipped, pointing at that source (which keeps its own content and schedule)."""
        for address in dict.fromkeys(addresses):
            source = await link_source_at(db, chatbot_uuid, address)
            if source is not None and source.meta.get("crawl_uuid") != self.crawl_uuid:
                row.state, row.reason = CrawlPageState.SKIPPED, f"already a source: {address}"
                row.data_source_uuid = source.uuid
                return True
        return False

    def content_lock(self, content_sha256: str) -> asyncio.Lock:
        """Held while a page with these bytes is stored: the run's workers store concurrently, and the second of two
        identical pages must see the first (a lock per hash; a run has at most `max_pages` of them)."""
        return self._content_locks.setdefault(content_sha256, asyncio.Lock())

    async def same_content(self, db: AsyncSession, chatbot_uuid: str, row: CrawlPage, content_sha256: str) -> bool:
        """Whether the chatbot's crawls stored these bytes under another address already; `row` is then skipped,
        pointing at that page's source. The same address fetched again is not a duplicate (its source is kept)."""
        twin = await CrawlPageRepository(db).stored_with_content(chatbot_uuid, content_sha256)
        if twin is None or twin.url_key == row.url_key:
            return False
        row.state, row.reason = CrawlPageState.SKIPPED, f"same content as {twin.url}"
        row.data_source_uuid = twin.data_source_uuid
        return True
