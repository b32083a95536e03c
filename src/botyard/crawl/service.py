"""Crawl rules: starting one (checked like any URL, queued as a job), reading its progress, cancelling it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.crawl.repository import CrawlPageRepository, CrawlRepository
from botyard.crawl.schemas import Crawl as CrawlOut
from botyard.crawl.schemas import CrawlCreate, CrawlFailure
from botyard.crawl.urls import normalise, url_key
from botyard.db.base import iso
from botyard.egress import EgressClient
from botyard.errors import AppError, ErrorCode
from botyard.jobs.kinds import CrawlSite
from botyard.jobs.service import enqueue
from botyard.models import Crawl, CrawlMode, CrawlPage, CrawlPageState, CrawlState
from botyard.sources.service import check_link

FINAL_STATES = frozenset({CrawlState.DONE, CrawlState.CANCELLED, CrawlState.FAILED})
SHOWN_FAILURES = 500


async def create(
    db: AsyncSession, egress: EgressClient, account_uuid: str, chatbot_uuid: str, body: CrawlCreate
) -> Crawl:
    start = normalise(body.url)
    if start is None:
        detail = {"field": "url", "message": "an http or https URL", "type": ErrorCode.URL_REFUSED.value}
        raise AppError(ErrorCode.URL_REFUSED, "The start URL is not an http or https URL", [detail])
    await check_link(egress, start)
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    scope = body.scope.model_dump()
    crawl = Crawl(
        chatbot_uuid=chatbot.uuid,
        url=start,
        mode=body.mode,
        scope=scope,
        max_pages=body.max_pages,
        max_depth=body.max_depth,
    )
    crawl = await CrawlRepository(db).add(crawl)
    if body.mode == CrawlMode.LINKS:
        await CrawlPageRepository(db).add(CrawlPage(crawl_uuid=crawl.uuid, url_key=url_key(start), url=start))
    await enqueue(db, CrawlSite(crawl.uuid), chatbot_uuid=chatbot.uuid)
    return crawl


async def get_owned(db: AsyncSession, account_uuid: str, crawl_uuid: str) -> Crawl:
    return await CrawlRepository(db).get_owned(account_uuid, crawl_uuid)


async def list_of_chatbot(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Sequence[Crawl]:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return await CrawlRepository(db).of_chatbot(chatbot.uuid)


async def cancel(db: AsyncSession, account_uuid: str, crawl_uuid: str, now: datetime) -> Crawl:
    """Stop the crawl: the crawler sees the state within a second and fetches nothing more; the pages it stored
    stay. Cancelling a finished crawl changes nothing."""
    crawl = await get_owned(db, account_uuid, crawl_uuid)
    if crawl.state not in FINAL_STATES:
        crawl.state, crawl.reason, crawl.finished_at = CrawlState.CANCELLED, "cancelled", now
        await db.flush()
    return crawl


async def to_wire(db: AsyncSession, crawl: Crawl) -> CrawlOut:
    pages = CrawlPageRepository(db)
    counts = await pages.counts(crawl.uuid)
    failures: list[CrawlFailure] = [
        {
            "url": page.url,
            "state": CrawlPageState(page.state),
            "reason": page.reason,
            "data_source_uuid": page.data_source_uuid,
        }
        for page in await pages.unsuccessful(crawl.uuid, SHOWN_FAILURES)
    ]
    return {
        "uuid": crawl.uuid,
        "chatbot_uuid": crawl.chatbot_uuid,
        "url": crawl.url,
        "mode": CrawlMode(crawl.mode),
        "scope": dict(crawl.scope),
        "max_pages": crawl.max_pages,
        "max_depth": crawl.max_depth,
        "state": CrawlState(crawl.state),
        "reason": crawl.reason,
        "pages_found": sum(counts.values()),
        "pages_done": counts.get(CrawlPageState.DONE, 0),
        "pages_failed": counts.get(CrawlPageState.FAILED, 0),
        "pages_skipped": counts.get(CrawlPageState.SKIPPED, 0),
        "failures": failures,
        "created_at": iso(crawl.created_at),
        "modified_at": iso(crawl.modified_at),
        "finished_at": iso(crawl.finished_at) if crawl.finished_at is not None else None,
    }
