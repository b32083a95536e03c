"""The `crawl_site` job: fetch a site's pages (from its sitemaps, or breadth first along its links) into URL sources.

Every request goes through the egress guard and the per-host gate (two at a time, a gap between starts, robots.txt
honoured). The frontier lives in `crawl_page` rows (`botyard.crawl.frontier`): each fetched page is stored, as a
source with its body and with the links it adds to the frontier, in one transaction, so a crawl that stops anywhere
(cancel, crash, `kill -9`) leaves consistent sources and, picked up again, goes on without adding anything twice.
What it fetches again is only what was fetched and not yet stored when it stopped: at most `WORKERS` pages, since a
worker stores its page before it takes the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.crawl.discovery import list_pages, read_robots
from botyard.crawl.frontier import Frontier
from botyard.crawl.hosts import HostGate
from botyard.crawl.html_links import PageLinks, read_links
from botyard.crawl.repository import CrawlPageRepository, CrawlRepository
from botyard.crawl.service import FINAL_STATES
from botyard.crawl.sitemaps import Robots
from botyard.crawl.urls import Scope, host_of, normalise
from botyard.db.base import iso, utcnow
from botyard.egress import EgressClient, EgressError, EgressHTTPError
from botyard.egress.result import FetchResult
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import CrawlSite
from botyard.jobs.reasons import shown_reason
from botyard.models import Crawl, CrawlMode, CrawlPage, CrawlPageState, CrawlState
from botyard.sources.service import add_crawled_page

WORKERS = 4
"""Pages in flight at once, from their fetch to their stored row (the host gate allows only two fetches per host)."""
BATCH = 32
MAX_PAGE_BYTES = 20 * 1024 * 1024
CANCEL_CHECK_SECONDS = 0.5


@dataclass(frozen=True)
class CrawlConfig:
    delay: float = 0.05
    max_seconds: float = 3600.0
    max_bytes: int = 500 * 1024 * 1024


class Crawler:
    """The job handler for `crawl_site`."""

    payload_type = CrawlSite

    def __init__(self, egress: EgressClient, config: CrawlConfig | None = None) -> None:
        self.egress = egress
        self.config = config or CrawlConfig()
        self.timeout_seconds = self.config.max_seconds + 120  # the crawl stops itself at its cap first

    async def run(self, ctx: JobContext[CrawlSite]) -> None:
        crawl = await ctx.read(lambda db: CrawlRepository(db).get(ctx.payload.crawl_uuid))
        if crawl is None or crawl.state in FINAL_STATES:
            return
        await CrawlRun(self, ctx, crawl).go()

    async def give_up(self, session: AsyncSession, payload: CrawlSite, reason: str) -> None:
        crawl = await CrawlRepository(session).get(payload.crawl_uuid)
        if crawl is not None and crawl.state not in FINAL_STATES:
            crawl.state, crawl.reason, crawl.finished_at = CrawlState.FAILED, shown_reason(reason), utcnow()


class CrawlRun:
    """One run of one crawl (a crawl picked up again after a crash gets a new run)."""

    def __init__(self, crawler: Crawler, ctx: JobContext[CrawlSite], crawl: Crawl) -> None:
        self.egress = crawler.egress
        self.config = crawler.config
        self.ctx = ctx
        self.crawl_uuid = crawl.uuid
        self.chatbot_uuid = crawl.chatbot_uuid
        self.start_url = crawl.url
        self.mode = crawl.mode
        self.max_depth = crawl.max_depth
        self.scope = Scope.of(crawl.url, crawl.scope)
        self.frontier = Frontier(crawl.uuid, self.scope, crawl.max_pages)
        self.fetched_bytes = crawl.fetched_bytes
        self.gate = HostGate(self.config.delay)
        self.robots: dict[str, Robots] = {}
        self.robots_lock = asyncio.Lock()
        self.stopped: str | None = None
        """Why the run stops early: `cancelled`, or a cap reached."""

    async def go(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.max_seconds
        await self.ctx.write(self._mark_running)
        self.frontier.remember(await self.ctx.read(lambda db: CrawlPageRepository(db).keys(self.crawl_uuid)))
        watcher = asyncio.create_task(self._watch_cancel())
        try:
            if self.mode == CrawlMode.SITEMAP and self.frontier.found == 0:
                await self._read_sitemaps()
            while self.stopped is None:
                batch = await self.ctx.read(lambda db: CrawlPageRepository(db).pending(self.crawl_uuid, BATCH))
                if not batch:
                    break
                await self._visit_all(batch)
                if loop.time() > deadline and self.stopped is None:
                    self.stopped = "time cap reached"
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        await self.ctx.finish(self._finish)

    async def _visit_all(self, batch: Sequence[CrawlPage]) -> None:
        """`WORKERS` workers share the batch. One that fails (its lease lost, the database gone) stops the others at
        once: a worker left running would fetch a page that nothing can store any more."""
        queue: asyncio.Queue[CrawlPage] = asyncio.Queue()
        for page in batch:
            queue.put_nowait(page)
        try:
            async with asyncio.TaskGroup() as workers:
                for _ in range(WORKERS):
                    workers.create_task(self._work(queue))
        except BaseExceptionGroup as failed:  # the job runner tells a lost lease from a failure by the error's type
            raise failed.exceptions[0] from None

    async def _mark_running(self, db: AsyncSession) -> None:
        crawl = await CrawlRepository(db).get(self.crawl_uuid)
        if crawl is not None and crawl.state == CrawlState.QUEUED:
            crawl.state = CrawlState.RUNNING

    async def _finish(self, db: AsyncSession) -> None:
        crawl = await CrawlRepository(db).get(self.crawl_uuid)
        if crawl is None or crawl.state in FINAL_STATES:  # cancelled: the cancel recorded its own end
            return
        if self.stopped is not None:
            await CrawlPageRepository(db).skip_pending(self.crawl_uuid, f"not fetched: {self.stopped}")
            crawl.reason = self.stopped
        crawl.state, crawl.finished_at = CrawlState.DONE, utcnow()
        crawl.fetched_bytes = self.fetched_bytes

    async def _watch_cancel(self) -> None:
        while True:
            await asyncio.sleep(CANCEL_CHECK_SECONDS)
            crawl = await self.ctx.read(lambda db: CrawlRepository(db).get(self.crawl_uuid))
            if crawl is None or crawl.state == CrawlState.CANCELLED:
                self.stopped = "cancelled"
                return

    async def _work(self, queue: asyncio.Queue[CrawlPage]) -> None:
        while self.stopped is None:
            try:
                page = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            if self.frontier.is_settled(page):
                continue
            try:
                await self._visit(page)
            except EgressError as error:  # its robots.txt refused (a private address): recorded on the page
                await self._failed(page, error.reason)

    # --- one page -------------------------------------------------------------------------------------------------

    async def _visit(self, page: CrawlPage) -> None:
        robots = await self._robots_for(page.url)
        if not robots.allows(page.url):
            reason = "robots.txt forbids" if robots.reachable else "robots.txt unreachable"
            await self._failed(page, reason)
            return
        result = await self._fetch(page)
        if result is None:
            return
        final = normalise(result.url) or page.url
        if final != page.url and not self.scope.admits(final):
            await self._failed(page, "redirected out of scope")
            return
        links = await asyncio.to_thread(read_links, result.body, final) if _is_html(result) else None
        digest = hashlib.sha256(result.body).hexdigest()
        async with self.frontier.content_lock(digest):
            await self.ctx.write(lambda db: self._store(db, page, final, result, links, digest))

    async def _fetch(self, page: CrawlPage) -> FetchResult | None:
        if self.fetched_bytes >= self.config.max_bytes:
            self.stopped = "byte cap reached"
            return None
        try:
            async with self.gate.slot(host_of(page.url)):
                result = await self.egress.fetch(page.url, max_bytes=MAX_PAGE_BYTES)
        except EgressError as error:
            reason = f"http {error.result.status}" if isinstance(error, EgressHTTPError) else error.reason
            await self._failed(page, reason)
            return None
        self.fetched_bytes += len(result.body)
        return result

    async def _store(
        self, db: AsyncSession, page: CrawlPage, final: str, result: FetchResult, links: PageLinks | None, digest: str
    ) -> None:
        """The page's source (under its canonical URL when it names one in scope; none when another address's page
        had the same bytes, or when the chatbot holds the page as a source already), its state, and the links it
        adds to the frontier: one transaction."""
        current = await CrawlPageRepository(db).get(page.id)
        crawl = await CrawlRepository(db).get(self.crawl_uuid)
        if (
            current is None
            or current.state != CrawlPageState.PENDING
            or crawl is None
            or crawl.state == CrawlState.CANCELLED
        ):
            return  # a page fetched while the crawl was being cancelled is not stored
        identity = final
        if links is not None and links.canonical is not None and self.scope.admits(links.canonical):
            identity = links.canonical
        if links is not None and not links.index:
            current.state, current.reason = CrawlPageState.SKIPPED, "noindex"
        elif not await self.frontier.held_already(db, self.chatbot_uuid, current, (identity, current.url, final)):
            target = current if identity == current.url else await self.frontier.identity_row(db, current, identity)
            if target is not None and await self.frontier.same_content(db, self.chatbot_uuid, target, digest):
                if target is not current:
                    current.state, current.reason = CrawlPageState.SKIPPED, target.reason
                    current.data_source_uuid = target.data_source_uuid
            elif target is not None:
                source_uuid = await self._add_source(db, target, result, digest)
                if target is not current:
                    current.state, current.reason = CrawlPageState.SKIPPED, f"same page as {identity}"
                    current.data_source_uuid = source_uuid
        if self.mode == CrawlMode.LINKS and links is not None and links.follow and current.depth < self.max_depth:
            await self.frontier.add_links(db, links.links, current.depth + 1)
        await self._save_progress(db)

    async def _add_source(self, db: AsyncSession, row: CrawlPage, result: FetchResult, digest: str) -> str:
        meta = {"crawl_uuid": self.crawl_uuid}
        meta["fetched_at"] = iso(utcnow())
        for name, value in (("etag", result.etag), ("last_modified", result.last_modified), ("lastmod", row.lastmod)):
            if value:
                meta[name] = value
        content_type = result.content_type or "text/html"
        source, new = await add_crawled_page(db, self.chatbot_uuid, row.url, result.body, content_type, meta)
        row.data_source_uuid, row.content_sha256 = source.uuid, digest
        row.state, row.reason = (
            (CrawlPageState.DONE, "") if new else (CrawlPageState.SKIPPED, f"already a source: {row.url}")
        )  # added meanwhile
        return source.uuid

    async def _failed(self, page: CrawlPage, reason: str) -> None:
        await self.ctx.write(lambda db: self._fail(db, page, reason))

    async def _fail(self, db: AsyncSession, page: CrawlPage, reason: str) -> None:
        current = await CrawlPageRepository(db).get(page.id)
        if current is not None and current.state == CrawlPageState.PENDING:
            current.state, current.reason = CrawlPageState.FAILED, reason[:500]
        await self._save_progress(db)

    async def _save_progress(self, db: AsyncSession) -> None:
        crawl = await CrawlRepository(db).get(self.crawl_uuid)
        if crawl is not None:
            crawl.fetched_bytes = self.fetched_bytes
            crawl.modified_at = utcnow()

    # --- robots.txt and sitemaps ----------------------------------------------------------------------------------

    async def _robots_for(self, url: str) -> Robots:
        host = host_of(url)
        async with self.robots_lock:
            if host not in self.robots:
                self.robots[host] = await self._read_robots(url)
                if (delay := self.robots[host].delay) is not None:
                    self.gate.slow_down(host, delay)
            return self.robots[host]

    async def _read_robots(self, url: str) -> Robots:
        return await read_robots(self.egress, self.gate, url)

    async def _read_sitemaps(self) -> None:
        """Every page the site's sitemaps list, added to the frontier in one transaction, so a crash in the middle
        reads them all again."""
        robots = await self._robots_for(self.start_url)
        listing = await list_pages(self.egress, self.gate, self.start_url, robots)
        self.fetched_bytes += listing.fetched_bytes

        async def add(db: AsyncSession) -> None:
            await self.frontier.add_listing(db, listing)
            await self._save_progress(db)

        await self.ctx.write(add)


def _is_html(result: FetchResult) -> bool:
    return result.content_type in ("text/html", "application/xhtml+xml") or (
        not result.content_type and result.body.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html"))
    )
