"""`kill -9` of a real `botyard serve` process while it ingests: after a restart nothing is lost or doubled.

Fifty sources (web pages from a slow loopback site, and Q&A pairs) are created, then the server is killed with
SIGKILL ten times at random moments and started again. Afterwards every source must end `success` or `error:...`
within twice the job lease, hold exactly the chunks a run without kills produces, and SQLite must pass its
integrity check.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx2 as httpx
import pytest
from sqlalchemy.engine import make_url

from botyard.config import Settings
from tests.support.database import backend_params, fresh_settings
from tests.support.fake_llm import FakeLlm, Reply
from tests.support.servers import LEASE_SECONDS, Server, running
from tests.support.web_site import Page, WebSite

PAGES = 35
PAIRS = 15
KILLS = 10
IN_PROGRESS = {"queued", "downloading", "extracting", "chunking", "embedding"}


def _page(number: int) -> bytes:
    sections = "".join(
        f"<h2>Part {part} of page {number}</h2>"
        + f"<p>Paragraph {part} of page {number} explains item {number * 10 + part} in plain words. " * 30
        + "</p>"
        for part in range(1, 4)
    )
    head = f"<html><head><title>Page {number}</title></head><body><article><h1>Page {number}</h1>"
    return f"{head}{sections}</article></body></html>".encode()


@pytest.fixture(scope="module")
def slow_site() -> Iterator[WebSite]:
    site = WebSite()
    for number in range(PAGES):
        site.pages[f"/page/{number}"] = Page(_page(number), delay=0.4)
    yield site
    site.close()


def _create_sources(server: Server, key: str, site: WebSite) -> list[str]:
    headers = {"Authorization": f"Bearer {key}"}
    api = f"{server.base}/api/v1"
    bot = httpx.post(f"{api}/chatbot/create", headers=headers, json={"name": "crash"}).json()["uuid"]
    uuids = []
    for number in range(PAGES):
        body = {"url": site.url(f"/page/{number}")}
        response = httpx.post(f"{api}/chatbot/{bot}/data-source/url", headers=headers, json=body)
        assert response.status_code == 200, response.text
        uuids.append(response.json()["uuid"])
    for number in range(PAIRS):
        body = {"question": f"What is item {number}?", "answer": f"Item {number} is a numbered thing."}
        response = httpx.post(f"{api}/chatbot/{bot}/data-source/qa", headers=headers, json=body)
        assert response.status_code == 200, response.text
        uuids.append(response.json()["uuid"])
    return uuids


def _statuses(server: Server, key: str, uuids: list[str]) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}"}
    return {
        uuid: httpx.get(f"{server.base}/api/v1/data-source/{uuid}", headers=headers).json()["status"] for uuid in uuids
    }


def _settle(server: Server, key: str, uuids: list[str], seconds: float) -> dict[str, str]:
    """Poll until no source is in progress, or `seconds` pass; the statuses seen last."""
    deadline = time.monotonic() + seconds
    while True:
        statuses = _statuses(server, key, uuids)
        if not IN_PROGRESS & set(statuses.values()) or time.monotonic() > deadline:
            return statuses
        time.sleep(0.2)


def _chunk_counts(settings: Settings, uuids: list[str]) -> list[int]:
    """Chunks per source, in `uuids` order, read straight from the database."""
    sql = "SELECT data_source_uuid, count(*) FROM chunk GROUP BY data_source_uuid"
    if settings.is_sqlite:
        with sqlite3.connect(settings.data_dir / "botyard.sqlite3") as connection:
            counts = dict(connection.execute(sql).fetchall())
    else:
        url = make_url(settings.resolved_database_url).set(drivername="postgresql").render_as_string(False)

        async def fetch() -> dict[str, int]:
            connection = await asyncpg.connect(url)
            try:
                return {row[0]: row[1] for row in await connection.fetch(sql)}
            finally:
                await connection.close()

        counts = asyncio.run(fetch())
    return [int(counts.get(uuid, 0)) for uuid in uuids]


def _ingest(settings: Settings, site: WebSite, kills: int, rng: random.Random) -> tuple[dict[str, str], list[int]]:
    server = Server(settings)
    key = server.key()
    with running(server):
        uuids = _create_sources(server, key, site)
        for _ in range(kills):
            time.sleep(rng.uniform(0.05, 1.5))
            server.kill()
            server.start(wait=rng.random() < 0.5)  # half the kills hit the next start-up itself
        server.wait_ready()
        # After the last start, every lease left behind expires and is recovered within twice the lease;
        # the work itself (35 slow pages, four at a time) gets a generous allowance on top.
        statuses = _settle(server, key, uuids, 2 * LEASE_SECONDS + 60)
    return statuses, _chunk_counts(settings, uuids)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.timeout(1200)  # two ingestions and twelve cold starts of `botyard serve`, on a machine that may be busy
def test_kill_9_during_ingestion_loses_and_doubles_nothing(backend: str, slow_site: WebSite, tmp_path: Path) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    with fresh_settings(backend, tmp_path / "clean") as settings:
        clean_statuses, clean_counts = _ingest(settings, slow_site, kills=0, rng=rng)
    assert set(clean_statuses.values()) == {"success"}
    with fresh_settings(backend, tmp_path / "killed") as settings:
        statuses, counts = _ingest(settings, slow_site, kills=KILLS, rng=rng)
        if settings.is_sqlite:
            with sqlite3.connect(settings.data_dir / "botyard.sqlite3") as connection:
                assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    stuck = {uuid: status for uuid, status in statuses.items() if status in IN_PROGRESS}
    assert not stuck, f"seed {seed}: sources still in progress after restart: {stuck}"
    assert all(status == "success" or status.startswith("error:") for status in statuses.values())
    assert counts == clean_counts, f"seed {seed}: chunk counts differ from a clean run"


@pytest.mark.parametrize("backend", backend_params())
def test_kill_9_mid_answer_keeps_what_was_streamed(backend: str, tmp_path: Path) -> None:
    """The message used to be marked interrupted with an empty response, though the client had the first part."""
    with FakeLlm(Reply.words(200, delay=0.05)) as llm, fresh_settings(backend, tmp_path) as settings:
        server = Server(settings)
        server.env |= {"BOTYARD_LLM_BASE_URL": llm.url, "BOTYARD_LLM_API_KEY": "sk-test"}
        key = server.key()
        headers = {"Authorization": f"Bearer {key}"}
        api = f"{server.base}/api/v1"
        with running(server):
            bot = httpx.post(f"{api}/chatbot/create", headers=headers, json={"name": "crash"}).json()["uuid"]
            chat = httpx.post(f"{api}/chatbot/{bot}/session/create", headers=headers).json()["uuid"]
            received = ""
            body = {"query": "Tell me everything"}
            with httpx.stream("POST", f"{api}/session/{chat}/message/stream", headers=headers, json=body) as answer:
                started = time.monotonic()
                for piece in answer.iter_text():
                    received += piece
                    if time.monotonic() - started > 2.5:  # past two checkpoints
                        break
                server.kill()
            server.start()
            [message] = httpx.get(f"{api}/session/{chat}/messages", headers=headers).json()
    assert json.loads(message["meta_json"])["interrupted"] is True
    kept = message["response"]
    # What was streamed is kept, but for at most the last checkpoint interval (1 s, about 20 words here).
    assert kept and received.startswith(kept) and len(received.split()) - len(kept.split()) <= 30
