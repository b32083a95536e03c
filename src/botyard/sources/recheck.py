"""A re-sync's checks of a chatbot's fetched pages, applied to their sources (`crawl.sync` runs the checks; sources
keep their rows, files and chunks): unchanged, changed (new bytes, processed again), gone (404/410 twice in a row:
`error:not found`, kept), or failed."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import iso, utcnow
from botyard.ingestion.freshness import GONE_AFTER_MISSES, Check
from botyard.models import DataSource, SourceError, SourceFile, SourceStatus
from botyard.outbox import events as webhooks
from botyard.sources.repository import DataSourceRepository, SourceFileRepository
from botyard.sources.service import schedule_processing

GONE = SourceError("not found").status
"""The status of a page that answered 404 or 410 `GONE_AFTER_MISSES` times in a row."""


async def fetched_pages(db: AsyncSession, chatbot_uuid: str) -> Sequence[DataSource]:
    """The chatbot's web pages that were fetched at least once (what a re-sync checks again)."""
    return await DataSourceRepository(db).fetched_pages(chatbot_uuid)


async def record_all(db: AsyncSession, checks: list[tuple[str, Check]]) -> None:
    for source_uuid, check in checks:
        await record(db, source_uuid, check)


def url_of(source: DataSource) -> str:
    return str(source.meta.get("url") or source.file_name)


async def record(db: AsyncSession, source_uuid: str, check: Check) -> str:
    """Apply one page's check to its source; returns its outcome for the summary. A changed page's bytes replace
    its stored file and it is queued for processing (re-chunked and re-indexed in one transaction)."""
    source = await DataSourceRepository(db).get(source_uuid)
    if source is None:
        return "failed"
    now = iso(utcnow())
    if check.outcome == "unchanged":
        source.meta = {**source.meta, **check.meta, "misses": 0, "checked_at": now}
        if source.status == GONE:  # back again, as it was
            source.status = SourceStatus.SUCCESS
        return "unchanged"
    if check.outcome == "gone":
        misses = int(source.meta.get("misses", 0)) + 1
        source.meta = {**source.meta, "misses": misses, "checked_at": now}
        if misses >= GONE_AFTER_MISSES and source.status != GONE:
            source.status = GONE
            await webhooks.source_failed(db, source, utcnow())
        return "gone"
    if check.outcome == "failed":
        source.meta = {**source.meta, "checked_at": now, "last_check_error": check.reason}
        return "failed"
    assert check.result is not None
    body = check.result.body
    files = SourceFileRepository(db)
    await files.remove(source.uuid)
    sha = str(check.meta["body_sha256"])
    await files.add(
        SourceFile(
            data_source_uuid=source.uuid,
            content_type=check.result.content_type or "text/html",
            sha256=sha,
            content=body,
        )
    )
    source.meta = {**source.meta, **check.meta, "checked_at": now}
    source.status = SourceStatus.QUEUED
    await schedule_processing(db, source)
    return "changed"
