"""Crawls over a real 200-page loopback site (`tests/support/crawl_site.py`): both modes find exactly the site's
pages, stay in scope, never fetch what robots.txt forbids, de-duplicate addresses of one page, keep to two requests
at a time, refuse private addresses, stop on cancel; the crawl resource reports it all. Real app, both databases."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx2 as httpx
import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.crawl.crawler import WORKERS, CrawlConfig, Crawler
from botyard.egress import EgressClient
from botyard.jobs import kinds as jobs
from botyard.jobs.reasons import shown_reason
from botyard.models import Job
from botyard.runtime import Runtime
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.crawl_site import CrawlSite
from tests.support.database import Db, backend_params, fresh_settings
from tests.support.fake_dns import FakeDns
from tests.support.jobs import process, run_jobs
from tests.support.servers import LEASE_SECONDS, Server, running
from tests.support.sources import crawl, sources_by_url
from tests.support.waiting import wait_for
from tests.support.web_site import Page, WebSite


@pytest.fixture
def site() -> Iterator[CrawlSite]:
    served = CrawlSite()
    yield served
    served.close()


def test_a_links_crawl_stores_exactly_the_sites_pages(alice: Api, client: TestClient, site: CrawlSite) -> None:
    bot = alice.chatbot()["uuid"]
    started = crawl(alice, bot, site.url("/"), mode="links", max_depth=5)
    assert started["state"] == "queued" and started["pages_found"] == 1 and started["mode"] == "links"
    process(client, embedder=None)

    done = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
    assert done["state"] == "done" and done["reason"] == "" and done["finished_at"] is not None
    stored = sources_by_url(alice, bot)
    assert set(stored) == {site.url(path) for path in CrawlSite.pages()}
    assert {source["status"] for source in stored.values()} == {"success"}
    assert {source["type"] for source in stored.values()} == {"link"}
    assert stored[site.url("/docs/7")]["title"] == "/docs/7"  # the page's own heading, as for any URL source
    # Nothing forbidden or out of scope was fetched; each page once (the ingestion parsed what the crawl fetched).
    assert not [path for path in site.hits if path.startswith(("/private/", "/assets/", "/secret"))]
    assert site.hits["/robots.txt"] == 1
    assert max(count for path, count in site.hits.items() if path != "/robots.txt") == 1
    assert site.most_in_flight <= 2
    failures = {failure["url"]: failure["reason"] for failure in done["failures"]}
    assert failures[site.url("/private/0")] == "robots.txt forbids"
    assert done["pages_failed"] == 1 and done["pages_done"] == 200
    # Other addresses of a stored page: skipped with the page they are (a redirect, a canonical link).
    assert failures[site.url("/about?print=1")] == f"same page as {site.url('/about')}"
    assert site.url("/old-docs") in failures and failures[site.url("/old-docs")].startswith("same page as")


def test_a_sitemap_crawl_reads_the_index_and_the_gzip_sitemap(alice: Api, client: TestClient, site: CrawlSite) -> None:
    bot = alice.chatbot()["uuid"]
    started = crawl(alice, bot, site.url("/"), mode="sitemap")
    assert started["pages_found"] == 0
    process(client, embedder=None)

    done = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
    assert done["state"] == "done"
    stored = sources_by_url(alice, bot)
    assert set(stored) == {site.url(path) for path in CrawlSite.pages()}
    assert {source["status"] for source in stored.values()} == {"success"}
    assert site.hits["/sitemap_index.xml"] == 1 and site.hits["/sitemaps/blog.xml.gz"] == 1
    assert site.hits["/private/0"] == 0 and site.most_in_flight <= 2
    assert [failure["url"] for failure in done["failures"]] == [site.url("/private/0")]
    assert '"lastmod": "2026-11-01"' in stored[site.url("/blog/5")]["meta_json"]


def test_the_scope_limits_what_a_crawl_takes(alice: Api, client: TestClient, site: CrawlSite) -> None:
    bot = alice.chatbot()["uuid"]
    scope = {"path_prefix": "/docs/", "exclude": ["/docs/1*"]}
    crawl(alice, bot, site.url("/docs/"), mode="links", scope=scope, max_depth=1)
    process(client, embedder=None)
    stored = set(sources_by_url(alice, bot))
    expected = {site.url("/docs/")} | {site.url(f"/docs/{i}") for i in range(126) if not str(i).startswith("1")}
    assert stored == expected  # depth 1: not the details pages; excluded: /docs/1, /docs/10..19, /docs/100..125
    assert not [path for path in site.hits if path.startswith(("/blog", "/docs/1"))]


def test_max_pages_caps_the_pages_found(alice: Api, client: TestClient, site: CrawlSite) -> None:
    bot = alice.chatbot()["uuid"]
    started = crawl(alice, bot, site.url("/docs/"), mode="links", max_pages=20)
    process(client, embedder=None)
    done = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
    assert done["pages_found"] == 20 and done["pages_done"] == 20 and len(sources_by_url(alice, bot)) == 20


def test_a_page_stored_through_a_redirect_is_not_fetched_again_in_its_own_turn(alice: Api, client: TestClient) -> None:
    # "/" links "/moved" (a redirect to "/target") before "/target": one batch holds both. Storing "/moved" stores
    # "/target"; when "/target" comes off the queue (the three slow pages hold the other workers meanwhile) it is
    # done already and needs no request of its own.
    web = WebSite()
    try:
        slow = [f"/slow/{n}" for n in range(3)]
        anchors = "".join(f'<a href="{path}">{path}</a>' for path in ["/moved", *slow, "/target"])
        web.pages["/"] = Page(f"<html><body><h1>Home</h1><p>Links.</p>{anchors}</body></html>".encode())
        web.pages["/moved"] = Page(b"", status=301, headers={"Location": web.url("/target")})
        web.pages["/target"] = Page(b"<html><body><h1>Target</h1><p>The page itself.</p></body></html>")
        for path in slow:
            web.pages[path] = Page(f"<html><body><h1>{path}</h1><p>Slow.</p></body></html>".encode(), delay=0.5)
        bot = alice.chatbot()["uuid"]
        started = crawl(alice, bot, web.url("/"), mode="links")
        process(client, embedder=None)
        done = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
        assert done["state"] == "done" and done["pages_done"] == 5
        assert set(sources_by_url(alice, bot)) == {web.url(path) for path in ["/", "/target", *slow]}
        assert web.hits["/target"] == 1 and web.hits["/moved"] == 1
    finally:
        web.close()


def test_a_link_to_a_private_address_is_refused_like_any_url(
    alice: Api, client: TestClient, site: CrawlSite, fake_dns: FakeDns
) -> None:
    fake_dns.records["intranet.test"] = ["10.0.0.7"]
    bot = alice.chatbot()["uuid"]
    started = crawl(alice, bot, site.url("/"), mode="links", max_depth=1, scope={"same_host": False})
    process(client, embedder=None)
    done = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
    secret = "http://intranet.test/secret"
    reasons = {failure["url"]: failure["reason"] for failure in done["failures"]}
    # A name without a public address answers as one that does not resolve: its robots.txt cannot be read.
    assert reasons[secret] == "robots.txt unreachable"
    assert secret not in sources_by_url(alice, bot) and "/secret" not in site.hits


def test_a_cancelled_crawl_stops_within_seconds_and_leaves_whole_sources(
    alice: Api, client: TestClient, site: CrawlSite
) -> None:
    site.delay = 0.1  # ~20 pages a second at two at a time: 200 pages would take ten seconds
    bot = alice.chatbot()["uuid"]
    started = crawl(alice, bot, site.url("/"), mode="links")
    runner = threading.Thread(target=process, args=(client,), kwargs={"embedder": None})
    runner.start()
    wait_for(lambda: alice.ok(alice.get(f"/crawl/{started['uuid']}"))["pages_done"] >= 10, what="ten pages crawled")
    cancelled = alice.ok(alice.post(f"/crawl/{started['uuid']}/cancel"))
    assert cancelled["state"] == "cancelled" and cancelled["finished_at"] is not None
    # The crawler looks at its state twice a second: the crawl job ends, and the runner with it, once it has seen
    # the cancel and its requests in flight have finished. Uncancelled, it would go on to fetch all 200 pages.
    runner.join(timeout=60)
    assert not runner.is_alive()
    fetched = sum(count for path, count in site.hits.items() if path != "/robots.txt")
    assert fetched < 200
    hits_when_stopped = sum(site.hits.values())
    process(client, embedder=None)
    assert sum(site.hits.values()) == hits_when_stopped  # stopped for good: running the queue again fetches nothing
    final = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
    assert final["state"] == "cancelled" and final["pages_done"] < 200
    stored = sources_by_url(alice, bot)
    assert len(stored) == final["pages_done"] and {s["status"] for s in stored.values()} == {"success"}


def test_bad_crawls_are_refused_and_crawls_are_private(
    alice: Api, bob: Api, client: TestClient, site: CrawlSite
) -> None:
    bot = alice.chatbot()["uuid"]
    for body in (
        {"url": "ftp://example.com/"},
        {"url": site.url("/"), "mode": "everything"},
        {"url": site.url("/"), "max_pages": 0},
        {"url": site.url("/"), "max_pages": 10_001},
        {"url": site.url("/"), "scope": {"path_prefix": "docs"}},
    ):
        response = alice.post(f"/chatbot/{bot}/data-source/crawl", body)
        assert response.status_code == 422, (body, response.text)
    assert_error(alice.post(f"/chatbot/{bot}/data-source/crawl", {"url": "http://10.0.0.1/"}), 422, "url_refused")
    assert alice.ok(alice.get(f"/chatbot/{bot}/crawls")) == []
    started = crawl(alice, bot, site.url("/"))
    assert [c["uuid"] for c in alice.ok(alice.get(f"/chatbot/{bot}/crawls"))] == [started["uuid"]]
    assert_not_found(bob.get(f"/crawl/{started['uuid']}"))
    assert_not_found(bob.post(f"/crawl/{started['uuid']}/cancel"))
    assert_not_found(bob.post(f"/chatbot/{bot}/data-source/crawl", {"url": site.url("/")}))
    assert alice.ok(alice.get(f"/crawl/{started['uuid']}"))["state"] == "queued"


@pytest.mark.parametrize("backend", backend_params())
def test_kill_9_during_a_crawl_resumes_without_duplicates(backend: str, site: CrawlSite, tmp_path: Path) -> None:
    site.delay = 0.05
    with fresh_settings(backend, tmp_path) as settings:
        server = Server(settings)
        key = server.key()
        headers = {"Authorization": f"Bearer {key}"}
        api = f"{server.base}/api/v1"
        with running(server):
            bot = httpx.post(f"{api}/chatbot/create", headers=headers, json={"name": "crawl"}).json()["uuid"]
            body = {"url": site.url("/"), "mode": "links"}
            started = httpx.post(f"{api}/chatbot/{bot}/data-source/crawl", headers=headers, json=body).json()
            for done_before_kill in (20, 80):
                wait_for(lambda n=done_before_kill: _crawl(api, headers, started["uuid"])["pages_done"] >= n, 60)
                server.kill()
                server.start()
            wait_for(lambda: _crawl(api, headers, started["uuid"])["state"] == "done", 2 * LEASE_SECONDS + 90)
            final = _crawl(api, headers, started["uuid"])
            listed = httpx.get(f"{api}/chatbot/{bot}/data-sources", headers=headers).json()
        claims = _crawl_job_claims(settings)
    urls = [source["file_name"] for source in listed]
    assert len(urls) == len(set(urls)) == 200 and set(urls) == {site.url(path) for path in CrawlSite.pages()}
    assert final["pages_done"] == 200 and final["pages_failed"] == 1
    # Only the pages in flight when a run lost its lease may have been fetched twice: a worker stores its page before
    # it takes the next one. A lease is lost at each kill, and also whenever a loaded machine stalls the server for
    # longer than the test's two-second lease; every claim after the first follows one such loss.
    assert claims >= 3
    assert sum(count - 1 for path, count in site.hits.items() if path != "/robots.txt") <= (claims - 1) * WORKERS


def _crawl_job_claims(settings: Settings) -> int:
    """How many times a runner claimed the crawl's job (its `attempts`), read straight from the database."""
    sql = "SELECT attempts FROM job WHERE kind = 'crawl_site'"
    if settings.is_sqlite:
        with contextlib.closing(sqlite3.connect(settings.data_dir / "botyard.sqlite3")) as connection:
            [(attempts,)] = connection.execute(sql).fetchall()
        return int(attempts)
    url = make_url(settings.resolved_database_url).set(drivername="postgresql").render_as_string(False)

    async def fetch() -> int:
        connection = await asyncpg.connect(url)
        try:
            return int(await connection.fetchval(sql))
        finally:
            await connection.close()

    return asyncio.run(fetch())


def _crawl(api: str, headers: dict[str, str], uuid: str) -> dict[str, Any]:
    found: dict[str, Any] = httpx.get(f"{api}/crawl/{uuid}", headers=headers).json()
    return found


def run_crawls(client: TestClient, config: CrawlConfig) -> None:
    """Run the queued crawl jobs with a crawler of `config` (the settings' caps are far above a test site)."""
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    run_jobs(client, [Crawler(runtime.egress, config)])


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        (CrawlConfig(delay=0, max_bytes=5_000), "byte cap reached"),
        (CrawlConfig(delay=0.05, max_seconds=0.5), "time cap reached"),
    ],
)
def test_the_byte_and_time_caps_end_a_crawl_early(
    alice: Api, client: TestClient, site: CrawlSite, config: CrawlConfig, reason: str
) -> None:
    bot = alice.chatbot()["uuid"]
    started = crawl(alice, bot, site.url("/"), mode="links")
    run_crawls(client, config)
    done = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
    assert done["state"] == "done" and done["reason"] == reason
    assert 0 < done["pages_done"] < 200 and done["pages_skipped"] > 0
    assert f"not fetched: {reason}" in {failure["reason"] for failure in done["failures"]}
    fetched = sum(count for path, count in site.hits.items() if path != "/robots.txt")
    assert fetched <= done["pages_done"] + done["pages_failed"] + done["pages_skipped"]


def test_a_crawl_that_fails_for_good_shows_no_exception_text(alice: Api, db: Db, site: CrawlSite) -> None:
    bot = alice.chatbot()["uuid"]
    started = crawl(alice, bot, site.url("/docs/"), mode="links")

    async def fail_for_good(session: AsyncSession) -> None:
        [job] = (await session.execute(select(Job).where(Job.kind == jobs.JobKind.CRAWL_SITE))).scalars()
        job.status = "failed"
        await session.flush()
        payload = jobs.CrawlSite.from_json(job.payload)
        await Crawler(EgressClient(Settings())).give_up(
            session, payload, "OperationalError: /var/lib/botyard/x.sqlite3"
        )

    db.run(fail_for_good)
    failed = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
    # The reason used to be the exception's own text (a path here; SQL or an address elsewhere).
    assert failed["state"] == "failed" and failed["reason"] == "processing failed"


@pytest.mark.parametrize(
    ("reason", "shown"),
    [("private address", "private address"), ("http 503", "http 503"), ("ValueError: bad", "processing failed")],
)
def test_only_machine_reasons_are_shown(reason: str, shown: str) -> None:
    assert shown_reason(reason) == shown
