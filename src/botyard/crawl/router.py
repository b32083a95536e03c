"""Crawls: a whole website into a chatbot's URL sources. Not in the hosted interface; designed in its style
(`/chatbot/{uuid}/data-source/...` to create, `/crawl/{uuid}` to follow)."""

from __future__ import annotations

from fastapi import APIRouter

from botyard.crawl import service, sync
from botyard.crawl.schemas import Crawl, CrawlCreate
from botyard.crawl.sync_schemas import Sync, SyncUpdate
from botyard.db.base import utcnow
from botyard.deps import DbSession, Egress, ReadDbSession
from botyard.identity.access import Audited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission

router = APIRouter(tags=["crawls"])


@router.post(
    "/chatbot/{uuid}/data-source/crawl",
    response_model=Crawl,
    dependencies=[requires(Permission.KNOWLEDGE, made(AuditObject.CRAWL, action=AuditAction.STARTED))],
)
async def start_crawl(uuid: str, body: CrawlCreate, db: DbSession, account: CurrentAccount, egress: Egress) -> Crawl:
    """Crawl a website into URL sources, by its sitemaps (`mode: sitemap`) or by following links breadth first
    (`mode: links`), within `scope`, up to `max_pages` and `max_depth`. Each page becomes an ordinary `link` data
    source (one per normalised URL). robots.txt is honoured, two requests at a time per host. A refused start URL
    (private address, scheme, port) answers 422 `url_refused`."""
    crawl = await service.create(db, egress, account, uuid, body)
    return await service.to_wire(db, crawl)


@router.get("/chatbot/{uuid}/crawls", response_model=list[Crawl], dependencies=[requires(Permission.READ)])
async def list_crawls(uuid: str, db: ReadDbSession, account: CurrentAccount) -> list[Crawl]:
    """A chatbot's crawls, oldest first."""
    return [await service.to_wire(db, crawl) for crawl in await service.list_of_chatbot(db, account, uuid)]


@router.get("/crawl/{uuid}", response_model=Crawl, dependencies=[requires(Permission.READ)])
async def get_crawl(uuid: str, db: ReadDbSession, account: CurrentAccount) -> Crawl:
    """A crawl's state (`queued`, `running`, `done`, `cancelled`, `failed`), its page counts, and the pages that
    failed or were skipped with their reasons (the first 500)."""
    return await service.to_wire(db, await service.get_owned(db, account, uuid))


@router.post(
    "/crawl/{uuid}/cancel",
    response_model=Crawl,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.CRAWL, AuditAction.CANCELLED))],
)
async def cancel_crawl(uuid: str, db: DbSession, account: CurrentAccount) -> Crawl:
    """Stop a crawl: nothing more is fetched (within a second); the sources already added stay."""
    crawl = await service.cancel(db, account, uuid, utcnow())
    return await service.to_wire(db, crawl)


@router.get("/chatbot/{uuid}/sync", response_model=Sync, dependencies=[requires(Permission.READ)])
async def get_sync(uuid: str, db: ReadDbSession, account: CurrentAccount) -> Sync:
    """The chatbot's re-sync schedule for its URL sources (`off`, `daily`, `weekly`) and its last run's summary."""
    return await sync.get(db, account, uuid)


@router.post(
    "/chatbot/{uuid}/sync",
    response_model=Sync,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.SYNC, AuditAction.UPDATED, "schedule"))],
)
async def update_sync(uuid: str, body: SyncUpdate, db: DbSession, account: CurrentAccount) -> Sync:
    """Set how often every URL source is checked for changes: one conditional request per page (ETag,
    Last-Modified, content hash); changed pages are re-indexed, unchanged ones cost nothing more, pages gone twice
    in a row become `error:not found` and are kept."""
    return await sync.update(db, account, uuid, body.schedule, utcnow())


@router.post(
    "/chatbot/{uuid}/sync/run",
    response_model=Sync,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.SYNC, AuditAction.STARTED))],
)
async def run_sync(uuid: str, db: DbSession, account: CurrentAccount) -> Sync:
    """Check every URL source for changes now; a schedule goes on from this run."""
    return await sync.run_now(db, account, uuid, utcnow())
