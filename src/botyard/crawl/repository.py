"""Crawls, the pages of their frontiers, and the re-sync schedules of chatbots."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from botyard.db.repository import ChatbotPartRepository, Repository
from botyard.models import Crawl, CrawlPage, CrawlPageState, SyncSchedule


class CrawlRepository(ChatbotPartRepository[Crawl]):
    model = Crawl

    noun = "Crawl"

    async def of_chatbot(self, chatbot_uuid: str) -> Sequence[Crawl]:
        return await self.all(select(Crawl).where(Crawl.chatbot_uuid == chatbot_uuid).order_by(Crawl.created_at))


class CrawlPageRepository(Repository[CrawlPage]):
    model = CrawlPage

    async def add_new(self, page: CrawlPage) -> bool:
        """Insert the page unless the crawl has it already (False then, nothing written)."""
        try:
            async with self.session.begin_nested():
                self.session.add(page)
                await self.session.flush()
        except IntegrityError:
            return False
        return True

    async def by_key(self, crawl_uuid: str, url_key: str) -> CrawlPage | None:
        return await self.one_or_none(
            select(CrawlPage).where(CrawlPage.crawl_uuid == crawl_uuid, CrawlPage.url_key == url_key)
        )

    async def stored_with_content(self, chatbot_uuid: str, content_sha256: str) -> CrawlPage | None:
        """A page of any of the chatbot's crawls stored with these bytes and whose source still exists."""
        return await self.one_or_none(
            select(CrawlPage)
            .join(Crawl, Crawl.uuid == CrawlPage.crawl_uuid)
            .where(
                Crawl.chatbot_uuid == chatbot_uuid,
                CrawlPage.content_sha256 == content_sha256,
                CrawlPage.state == CrawlPageState.DONE,
                CrawlPage.data_source_uuid.is_not(None),
            )
            .order_by(CrawlPage.id)
            .limit(1)
        )

    async def pending(self, crawl_uuid: str, limit: int) -> Sequence[CrawlPage]:
        """The next pages to fetch: breadth first (lowest depth), then in the order found."""
        return await self.all(
            select(CrawlPage)
            .where(CrawlPage.crawl_uuid == crawl_uuid, CrawlPage.state == CrawlPageState.PENDING)
            .order_by(CrawlPage.depth, CrawlPage.id)
            .limit(limit)
        )

    async def keys(self, crawl_uuid: str) -> set[str]:
        rows = await self.session.execute(select(CrawlPage.url_key).where(CrawlPage.crawl_uuid == crawl_uuid))
        return {str(key) for key in rows.scalars()}

    async def counts(self, crawl_uuid: str) -> dict[str, int]:
        rows = await self.session.execute(
            select(CrawlPage.state, func.count()).where(CrawlPage.crawl_uuid == crawl_uuid).group_by(CrawlPage.state)
        )
        return {str(state): int(count) for state, count in rows.all()}

    async def unsuccessful(self, crawl_uuid: str, limit: int) -> Sequence[CrawlPage]:
        return await self.all(
            select(CrawlPage)
            .where(
                CrawlPage.crawl_uuid == crawl_uuid, CrawlPage.state.in_((CrawlPageState.FAILED, CrawlPageState.SKIPPED))
            )
            .order_by(CrawlPage.id)
            .limit(limit)
        )

    async def skip_pending(self, crawl_uuid: str, reason: str) -> None:
        await self.session.execute(
            update(CrawlPage)
            .where(CrawlPage.crawl_uuid == crawl_uuid, CrawlPage.state == CrawlPageState.PENDING)
            .values(state=CrawlPageState.SKIPPED, reason=reason)
        )


class SyncScheduleRepository(Repository[SyncSchedule]):
    """A chatbot's re-sync schedule, keyed by the chatbot's uuid (no row: the schedule is `off`)."""

    model = SyncSchedule
