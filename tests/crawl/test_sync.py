"""Keeping crawled pages fresh: a re-sync (scheduled or run now) and a re-scrape check each page with one conditional
request; unchanged pages keep their chunks, changed ones are re-indexed, pages gone twice become `error:not found`
and stay. The schedule is one queued job per chatbot. Real app and loopback site, both databases."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.crawl.sync import ChatbotSync
from botyard.egress import EgressClient
from botyard.embedding import Vectors
from botyard.jobs.kinds import SyncChatbot
from botyard.models import Job
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.crawl_site import CrawlSite
from tests.support.database import Db
from tests.support.embedders import FakeEmbedder
from tests.support.jobs import process
from tests.support.sources import chunks, crawl, sources_by_url

PAGES = 30


@pytest.fixture
def site() -> Iterator[CrawlSite]:
    served = CrawlSite()
    yield served
    served.close()


def crawled(api: Api, client: TestClient, site: CrawlSite) -> tuple[str, dict[str, dict[str, Any]]]:
    """A chatbot holding /docs/ and 29 doc pages, crawled and indexed."""
    bot: str = api.chatbot()["uuid"]
    crawl(api, bot, site.url("/docs/"), mode="links", max_depth=1, max_pages=PAGES)
    process(client, embedder=None)
    stored = sources_by_url(api, bot)
    assert len(stored) == PAGES and {s["status"] for s in stored.values()} == {"success"}
    return bot, stored


def chunk_ids(db: Db, stored: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    return {url: [chunk.uuid for chunk in chunks(db, source["uuid"])] for url, source in stored.items()}


def test_a_resync_costs_one_conditional_request_per_unchanged_page(
    alice: Api, client: TestClient, db: Db, site: CrawlSite
) -> None:
    bot, stored = crawled(alice, client, site)
    before = chunk_ids(db, stored)
    site.hits.clear()
    site.changed["/docs/5"] = "Fresh text: the pricing page now lists the enterprise plan."
    site.gone.add("/docs/6")

    alice.ok(alice.post(f"/chatbot/{bot}/sync/run"))
    process(client, embedder=None)

    assert set(site.hits.values()) == {1}  # one request per page (and per sitemap, for their <lastmod>)
    assert len([path for path in site.hits if path.startswith("/docs/")]) == PAGES
    assert site.not_modified == PAGES - 2
    assert site.most_in_flight <= 2  # no gap after a 304, but still two at a time
    after = chunk_ids(db, sources_by_url(alice, bot))
    unchanged = [url for url in stored if not url.endswith(("/docs/5", "/docs/6"))]
    assert all(after[url] == before[url] for url in unchanged)  # not re-chunked, so not re-embedded
    fresh = chunks(db, stored[site.url("/docs/5")]["uuid"])
    assert after[site.url("/docs/5")] != before[site.url("/docs/5")] and "enterprise plan" in fresh[0].text
    summary = alice.ok(alice.get(f"/chatbot/{bot}/sync"))["last_summary"]
    assert summary == {"checked": PAGES, "unchanged": PAGES - 2, "changed": 1, "gone": 1, "failed": 0, "skipped": 0}

    now = sources_by_url(alice, bot)
    assert now[site.url("/docs/6")]["status"] == "success"  # one miss may be a deploy in progress
    alice.ok(alice.post(f"/chatbot/{bot}/sync/run"))
    process(client, embedder=None)
    now = sources_by_url(alice, bot)
    assert now[site.url("/docs/6")]["status"] == "error:not found"  # gone twice: marked, and kept
    assert chunks(db, stored[site.url("/docs/6")]["uuid"])
    assert now[site.url("/docs/5")]["status"] == "success"

    site.gone.clear()  # back again
    alice.ok(alice.post(f"/chatbot/{bot}/sync/run"))
    process(client, embedder=None)
    assert sources_by_url(alice, bot)[site.url("/docs/6")]["status"] == "success"


def test_pages_the_sitemap_says_are_unchanged_cost_no_request(alice: Api, client: TestClient, site: CrawlSite) -> None:
    bot: str = alice.chatbot()["uuid"]
    crawl(alice, bot, site.url("/"), mode="sitemap", scope={"path_prefix": "/blog/"})
    process(client, embedder=None)
    assert len(sources_by_url(alice, bot)) == 61  # /blog/ and its 60 posts, listed with <lastmod> 2026-11-01
    site.hits.clear()
    alice.ok(alice.post(f"/chatbot/{bot}/sync/run"))
    process(client, embedder=None)
    assert not [path for path in site.hits if path.startswith("/blog/") and path != "/blog/"]
    assert site.hits["/blog/"] == 1  # no <lastmod>: one conditional request
    summary = alice.ok(alice.get(f"/chatbot/{bot}/sync"))["last_summary"]
    assert summary == {"checked": 61, "skipped": 60, "unchanged": 1, "changed": 0, "gone": 0, "failed": 0}


def test_rescrape_uses_the_same_change_detection(alice: Api, client: TestClient, db: Db, site: CrawlSite) -> None:
    bot, stored = crawled(alice, client, site)
    before = chunk_ids(db, stored)
    site.hits.clear()
    site.changed["/docs/3"] = "Updated: the API now supports webhooks."
    picked = [stored[site.url("/docs/3")]["uuid"], stored[site.url("/docs/4")]["uuid"]]
    alice.ok(alice.post("/data-sources/url/re-scrape", {"uuids": picked}))
    process(client, embedder=None)
    assert site.hits == {"/docs/3": 1, "/docs/4": 1} and site.not_modified == 1
    after = chunk_ids(db, sources_by_url(alice, bot))
    assert after[site.url("/docs/4")] == before[site.url("/docs/4")]
    assert "webhooks" in chunks(db, stored[site.url("/docs/3")]["uuid"])[0].text
    assert {s["status"] for s in sources_by_url(alice, bot).values()} == {"success"}


def queued_syncs(db: Db, bot: str) -> list[Job]:
    async def go(session: AsyncSession) -> list[Job]:
        statement = select(Job).where(Job.kind == "sync_chatbot", Job.chatbot_uuid == bot, Job.status == "queued")
        return list((await session.execute(statement)).scalars())

    return db.run(go)


def test_the_schedule_keeps_one_queued_run_per_chatbot(alice: Api, bob: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    assert alice.ok(alice.get(f"/chatbot/{bot}/sync")) == {
        "chatbot_uuid": bot, "schedule": "off", "next_run_at": None, "last_run_at": None, "last_summary": {},
    }  # fmt: skip
    daily = alice.ok(alice.post(f"/chatbot/{bot}/sync", {"schedule": "daily"}))
    next_run = datetime.fromisoformat(daily["next_run_at"].replace("Z", "+00:00"))
    assert abs(next_run - (datetime.now(UTC) + timedelta(days=1))) < timedelta(minutes=1)
    [job] = queued_syncs(db, bot)
    assert job.run_after.replace(microsecond=0) == next_run  # the job waits until the next run is due
    weekly = alice.ok(alice.post(f"/chatbot/{bot}/sync", {"schedule": "weekly"}))
    assert len(queued_syncs(db, bot)) == 1 and weekly["next_run_at"] > daily["next_run_at"]
    assert alice.ok(alice.post(f"/chatbot/{bot}/sync", {"schedule": "off"}))["next_run_at"] is None
    assert queued_syncs(db, bot) == []

    assert_error(alice.post(f"/chatbot/{bot}/sync", {"schedule": "hourly"}), 422, "validation_error")
    assert_not_found(bob.get(f"/chatbot/{bot}/sync"))
    assert_not_found(bob.post(f"/chatbot/{bot}/sync", {"schedule": "daily"}))
    assert_not_found(bob.post(f"/chatbot/{bot}/sync/run"))
    assert queued_syncs(db, bot) == []


def test_a_run_that_gives_up_still_queues_the_next(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    alice.ok(alice.post(f"/chatbot/{bot}/sync", {"schedule": "daily"}))
    [job] = queued_syncs(db, bot)
    handler = ChatbotSync(EgressClient(Settings()), delay=0.0)

    async def fail_for_good(session: AsyncSession) -> None:
        failed = await session.get(Job, job.uuid)
        assert failed is not None
        failed.status = "failed"  # what the runner does, in the transaction that calls `give_up`
        await session.flush()
        await handler.give_up(session, SyncChatbot.from_json(failed.payload), "timeout")

    db.run(fail_for_good)
    shown = alice.ok(alice.get(f"/chatbot/{bot}/sync"))
    next_run = datetime.fromisoformat(shown["next_run_at"].replace("Z", "+00:00"))
    # Before, nothing was queued and next_run_at stayed where the failed run had been, forever.
    assert shown["schedule"] == "daily" and shown["last_summary"] == {"error": "timeout"}
    assert abs(next_run - (datetime.now(UTC) + timedelta(days=1))) < timedelta(minutes=1)
    [queued] = queued_syncs(db, bot)
    assert queued.uuid != job.uuid and queued.run_after.replace(microsecond=0) == next_run


class CountingEmbedder(FakeEmbedder):
    """Counts the texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.texts += texts
        return await super().embed_documents(texts)


def test_a_resync_embeds_only_the_changed_page(alice: Api, client: TestClient, site: CrawlSite) -> None:
    embedder = CountingEmbedder()
    bot: str = alice.chatbot()["uuid"]
    crawl(alice, bot, site.url("/docs/"), mode="links", max_depth=1, max_pages=PAGES)
    process(client, embedder=embedder)
    assert len(embedder.texts) >= PAGES  # every page's chunks, once
    embedder.texts.clear()
    site.changed["/docs/8"] = "Changed: support hours are now eight to eight."
    alice.ok(alice.post(f"/chatbot/{bot}/sync/run"))
    process(client, embedder=embedder)
    # The changed page's chunk and its passages, nothing of the pages that did not change.
    assert embedder.texts and any("eight to eight" in text for text in embedder.texts)
    assert not any("This is the page at" in text for text in embedder.texts)
