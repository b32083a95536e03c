"""Keeping a chatbot's web pages fresh: its re-sync schedule, and the `sync_chatbot` job that checks every URL
source for changes.

The schedule is a chain of jobs: each run queues the next one (`run_after` = now + the interval), and changing the
schedule replaces the waiting job, so exactly one is ever queued per chatbot. A run first reads the sites' sitemaps:
a page whose `<lastmod>` is older than its last fetch is not requested at all. It checks each other page with one
conditional request through the per-host gate (two at a time per host); a changed page is handed to the ingestion
with the bytes just fetched (re-chunked and re-indexed in one transaction); an unchanged page costs nothing more;
a page answering 404/410 twice in a row becomes `error:not found` and is kept.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.crawl.discovery import list_pages, read_robots, unchanged_since
from botyard.crawl.hosts import HostGate
from botyard.crawl.repository import SyncScheduleRepository
from botyard.crawl.sync_schemas import Schedule, Sync
from botyard.crawl.urls import host_of, normalise
from botyard.db.base import iso, utcnow
from botyard.egress import EgressClient
from botyard.ingestion.freshness import Check, check_page
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import JobKind, SyncChatbot
from botyard.jobs.reasons import shown_reason
from botyard.jobs.service import drop_queued_of_chatbot, enqueue
from botyard.models import DataSource, SourceStatus, SyncSchedule
from botyard.sources import recheck

OUTCOMES = ("unchanged", "changed", "gone", "failed", "skipped")
INTERVALS = {"daily": timedelta(days=1), "weekly": timedelta(days=7)}
MAX_PAGE_BYTES = 20 * 1024 * 1024
RECORD_BATCH = 200


async def get(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Sync:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return to_wire(chatbot.uuid, await SyncScheduleRepository(db).get(chatbot.uuid))


async def update(db: AsyncSession, account_uuid: str, chatbot_uuid: str, schedule: Schedule, now: datetime) -> Sync:
    """Set the schedule; the first run is one interval from now (`run` checks at once)."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    row = await _row(db, chatbot.uuid)
    row.schedule = schedule
    row.next_run_at = now + INTERVALS[schedule] if schedule in INTERVALS else None
    await _queue(db, row)
    return to_wire(chatbot.uuid, row)


async def run_now(db: AsyncSession, account_uuid: str, chatbot_uuid: str, now: datetime) -> Sync:
    """Check every URL source now; the schedule goes on from this run."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    row = await _row(db, chatbot.uuid)
    row.next_run_at = now
    await _queue(db, row)
    return to_wire(chatbot.uuid, row)


async def _row(db: AsyncSession, chatbot_uuid: str) -> SyncSchedule:
    schedules = SyncScheduleRepository(db)
    row = await schedules.get(chatbot_uuid)
    if row is None:
        row = await schedules.add(SyncSchedule(chatbot_uuid=chatbot_uuid, schedule="off", last_summary={}))
    return row


async def _queue(db: AsyncSession, row: SyncSchedule) -> None:
    """Replace the chatbot's waiting sync job with one for `row.next_run_at` (none when there is no next run)."""
    await drop_queued_of_chatbot(db, JobKind.SYNC_CHATBOT, row.chatbot_uuid)
    if row.next_run_at is not None:
        payload = SyncChatbot(row.chatbot_uuid, run_at=iso(row.next_run_at))
        await enqueue(db, payload, chatbot_uuid=row.chatbot_uuid, run_after=row.next_run_at)
    await db.flush()


def to_wire(chatbot_uuid: str, row: SyncSchedule | None) -> Sync:
    return {
        "chatbot_uuid": chatbot_uuid,
        "schedule": row.schedule if row is not None else "off",
        "next_run_at": iso(row.next_run_at) if row is not None and row.next_run_at is not None else None,
        "last_run_at": iso(row.last_run_at) if row is not None and row.last_run_at is not None else None,
        "last_summary": dict(row.last_summary) if row is not None else {},
    }


class ChatbotSync:
    """The job handler for `sync_chatbot`."""

    payload_type = SyncChatbot
    timeout_seconds = 3600.0

    def __init__(self, egress: EgressClient, delay: float) -> None:
        self.egress = egress
        self.delay = delay

    async def run(self, ctx: JobContext[SyncChatbot]) -> None:
        chatbot_uuid = ctx.payload.chatbot_uuid
        pages = await ctx.read(lambda db: recheck.fetched_pages(db, chatbot_uuid))
        gate = HostGate(self.delay)
        summary: Counter[str] = Counter()
        slots = asyncio.Semaphore(4)
        lastmods = await self._sitemap_lastmods(gate, [recheck.url_of(source) for source in pages])
        unchanged: list[tuple[str, Check]] = []  # recorded in batches: most pages of a re-sync did not change

        async def flush() -> None:
            batch = unchanged.copy()
            unchanged.clear()
            if batch:
                await ctx.write(lambda db: recheck.record_all(db, batch))

        async def one(source: DataSource) -> None:
            url = recheck.url_of(source)
            if source.status == SourceStatus.SUCCESS and unchanged_since(
                lastmods.get(url), source.meta.get("fetched_at")
            ):
                summary["skipped"] += 1  # the sitemap says it has not changed since we fetched it: no request
                return
            async with slots, gate.slot(host_of(url)):
                check = await check_page(self.egress, url, source.meta, MAX_PAGE_BYTES)
                if check.result is not None and check.result.not_modified:
                    gate.waive(host_of(url))
            if check.outcome == "unchanged":
                summary["unchanged"] += 1
                unchanged.append((source.uuid, check))
                if len(unchanged) >= RECORD_BATCH:
                    await flush()
                return
            summary[await ctx.write(lambda db: recheck.record(db, source.uuid, check))] += 1

        await asyncio.gather(*(one(source) for source in pages))
        await flush()
        counts = {"checked": len(pages)} | {outcome: summary[outcome] for outcome in OUTCOMES}  # zeros included
        await ctx.finish(lambda db: _next_run(db, chatbot_uuid, ctx.payload.run_at, counts))

    async def give_up(self, session: AsyncSession, payload: SyncChatbot, reason: str) -> None:
        """A run that failed for good still hands on to the next one, its reason as the summary: the schedule is a
        chain of jobs, and without the next link it would show "daily" with `next_run_at` in the past forever."""
        await _next_run(session, payload.chatbot_uuid, payload.run_at, {"error": shown_reason(reason)})

    async def _sitemap_lastmods(self, gate: HostGate, urls: list[str]) -> dict[str, str]:
        """`<lastmod>` of every page the sitemaps of these pages' sites list (one site at a time)."""
        lastmods: dict[str, str] = {}
        for site in dict.fromkeys(normalise("/", url) for url in urls):
            if site is None:
                continue
            robots = await read_robots(self.egress, gate, site)
            listing = await list_pages(self.egress, gate, site, robots)
            lastmods |= {url: lastmod for url, lastmod in listing.pages if lastmod}
        return lastmods


async def _next_run(db: AsyncSession, chatbot_uuid: str, run_at: str, summary: Mapping[str, int | str]) -> None:
    """Record the run and queue the next one, unless the schedule changed meanwhile (its own job is queued)."""
    row = await SyncScheduleRepository(db).get(chatbot_uuid)
    if row is None:
        return
    row.last_run_at, row.last_summary = utcnow(), dict(summary)
    if row.next_run_at is not None and iso(row.next_run_at) != run_at:
        return
    interval = INTERVALS.get(row.schedule)
    row.next_run_at = utcnow() + interval if interval is not None else None
    await _queue(db, row)
