"""Sources through the whole pipeline: real loopback pages, real files, the real job runner and databases."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.ingestion.tokens import count_tokens
from botyard.models import Chunk, DataSource, Job
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.jobs import process
from tests.support.sources import ARTICLE, chunks, knowledge_version, source
from tests.support.web_site import Page, WebSite

HOSTS = "Allowed hosts (dashboard Settings, or BOTYARD_EGRESS_ALLOWLIST)"
PORTS = "Allowed ports (dashboard Settings, or BOTYARD_EGRESS_ALLOWED_PORTS)"
"""How a refusal names the settings that would lift it."""


@pytest.fixture(scope="module")
def site() -> Iterator[WebSite]:
    server = WebSite()
    yield server
    server.close()


@pytest.fixture
def bot(alice: Api) -> str:
    uuid: str = alice.chatbot()["uuid"]
    return uuid


def test_a_qa_pair_becomes_one_chunk(alice: Api, bot: str, db: Db) -> None:
    question, answer = "What are your opening hours?", "Nine to five, Monday to Friday."
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": question, "answer": answer}))
    assert created["status"] == "queued"
    process(alice.client)
    done = source(alice, created["uuid"])
    assert done["status"] == "success"
    assert done["title"] == question
    [chunk] = chunks(db, created["uuid"])
    assert question in chunk.text
    assert answer in chunk.text
    assert done["tokens"] == count_tokens(f"{question}\n\n{answer}") > 0
    assert knowledge_version(db, bot) == 1


def test_a_web_page_is_fetched_extracted_and_chunked(alice: Api, bot: str, db: Db, site: WebSite) -> None:
    site.pages["/hours"] = Page(ARTICLE)
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/hours")}))
    process(alice.client)
    done = source(alice, created["uuid"])
    assert done["status"] == "success", done
    assert done["title"] == "Opening hours"  # trafilatura drops the site name from the page title
    assert done["file_name"] == site.url("/hours")
    assert done["file_size"] == len(ARTICLE)
    assert done["tokens"] > 20
    text = "\n".join(chunk.text for chunk in chunks(db, created["uuid"]))
    assert "open from nine in the morning" in text
    assert "Gift wrapping is free" in text
    assert "Copyright Example Shop" not in text  # boilerplate is not knowledge


def statuses_while_processing(api: Api, db: Db, uuids: list[str], show_stage_after: float) -> dict[str, list[str]]:
    """Every status each source showed while the job runner worked, in order (sampled every 20 ms)."""
    seen: dict[str, list[str]] = {uuid: [] for uuid in uuids}
    worker = threading.Thread(target=process, args=(api.client,), kwargs={"show_stage_after": show_stage_after})
    worker.start()
    while True:
        running = worker.is_alive()
        for uuid, status in db.run(lambda s: s.execute(select(DataSource.uuid, DataSource.status))).all():
            if uuid in seen and (not seen[uuid] or seen[uuid][-1] != status):
                seen[uuid].append(status)
        if not running:
            return seen
        worker.join(0.02)


def test_a_lasting_stage_shows_in_the_status(alice: Api, bot: str, db: Db, site: WebSite) -> None:
    site.pages["/slow-hours"] = Page(ARTICLE, delay=1.0)
    slow = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/slow-hours")}))["uuid"]
    seen = statuses_while_processing(alice, db, [slow], show_stage_after=0.1)
    assert seen[slow][0] == "queued" and "downloading" in seen[slow] and seen[slow][-1] == "success"


def test_quick_stages_cost_no_status_writes(alice: Api, bot: str, db: Db, site: WebSite) -> None:
    site.pages["/hours-again"] = Page(ARTICLE, delay=0.3)
    uuid = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/hours-again")}))["uuid"]
    seen = statuses_while_processing(alice, db, [uuid], show_stage_after=60)
    assert seen[uuid] == ["queued", "success"]  # one write for the whole job: chunks, status and completion
    assert db.run(lambda s: s.scalar(select(Job.status).where(Job.data_source_uuid == uuid))) == "done"


def test_a_renamed_source_keeps_its_title(alice: Api, bot: str, site: WebSite) -> None:
    site.pages["/named"] = Page(ARTICLE)
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/named")}))
    alice.ok(alice.post(f"/data-source/{created['uuid']}/update", {"title": "Our hours"}))
    process(alice.client)
    assert source(alice, created["uuid"])["title"] == "Our hours"


def test_a_missing_page_ends_as_an_error(alice: Api, bot: str, db: Db, site: WebSite) -> None:
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/nowhere")}))
    process(alice.client)
    assert source(alice, created["uuid"])["status"] == "error:http 404"
    assert chunks(db, created["uuid"]) == []


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://127.0.0.2/", "url_refused"),
        ("http://2130706434/", "url_refused"),
        ("http://[::1]/", "url_refused"),
        ("http://169.254.169.254/latest/meta-data/", "url_refused"),
        ("http://100.64.0.1/", "url_refused"),
        ("http://user:secret@example.com/", "url_refused"),
        ("https://example.com:8443/", "url_refused"),
        ("file:///etc/passwd", "validation_error"),
        ("ftp://example.com/file", "validation_error"),
    ],
)
def test_refused_urls_are_a_clear_422_at_creation(alice: Api, bot: str, fake_dns: FakeDns, url: str, code: str) -> None:
    fake_dns.records["internal.test"] = ["10.1.2.3"]
    error = assert_error(alice.post(f"/chatbot/{bot}/data-source/url", {"url": url}), 422, code)
    assert error["details"][0]["field"] == "url"
    assert alice.ok(alice.get(f"/chatbot/{bot}/data-sources")) == []


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "https://example.com:8443/",
            f"URL refused: port not allowed: 8443 (allowed: 80, 443); to use it, add it to {PORTS},"
            f" or list the host in {HOSTS} (an allowlisted host may use any port)",
        ),
        (
            "http://169.254.169.254/latest/meta-data/",
            "URL refused: private address: 169.254.169.254 (cloud metadata); to fetch it, list it or its network in"
            f" {HOSTS}",
        ),
    ],
)
def test_a_refusal_names_the_setting_that_would_lift_it(alice: Api, bot: str, url: str, message: str) -> None:
    error = assert_error(alice.post(f"/chatbot/{bot}/data-source/url", {"url": url}), 422, "url_refused")
    assert error["error"] == message


def test_a_name_without_a_public_address_answers_like_one_that_does_not_resolve(
    alice: Api, bot: str, fake_dns: FakeDns
) -> None:
    # Else which names the server's hosts file or internal DNS knows (and where they point) could be probed.
    fake_dns.records["internal.test"] = ["10.1.2.3"]
    created = [
        alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": f"http://{name}/"}))
        for name in ("internal.test", "nowhere.test")
    ]
    process(alice.client)
    assert [source(alice, one["uuid"])["status"] for one in created] == ["error:dns failure"] * 2


def test_a_redirect_to_a_private_address_fails_the_source(alice: Api, bot: str, db: Db, site: WebSite) -> None:
    site.pages["/moved"] = Page(b"", status=302, headers={"Location": "http://169.254.169.254/latest/"})
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/moved")}))
    process(alice.client)
    assert source(alice, created["uuid"])["status"] == "error:private address"


def test_uploads_are_parsed_in_the_sandbox(alice: Api, bot: str, db: Db) -> None:
    files = {
        "notes.md": b"# Returns\n\nItems can be returned within thirty days of delivery.\n",
        "prices.csv": b"item,price\nkettle,25\ntoaster,40\n",
        "faq.html": b"<html><head><title>FAQ</title></head><body><h1>FAQ</h1><p>We ship to every country in "
        b"the European Union within three working days.</p></body></html>",
    }
    uploaded = {}
    for name, content in files.items():
        uploaded[name] = alice.ok(
            alice.client.post(
                f"/api/v1/chatbot/{bot}/data-source/upload", headers=alice.auth, files={"file": (name, content)}
            )
        )["uuid"]
    process(alice.client)
    for name, uuid in uploaded.items():
        assert source(alice, uuid)["status"] == "success", (name, source(alice, uuid))
    assert "thirty days" in chunks(db, uploaded["notes.md"])[0].text
    assert "| kettle | 25 |" in chunks(db, uploaded["prices.csv"])[0].text.replace("  ", " ")
    assert "European Union" in chunks(db, uploaded["faq.html"])[0].text


def test_a_file_lying_about_its_type_fails_alone(alice: Api, bot: str, db: Db) -> None:
    fake = alice.ok(
        alice.client.post(
            f"/api/v1/chatbot/{bot}/data-source/upload",
            headers=alice.auth,
            files={"file": ("report.pdf", b"MZ\x90\x00" + bytes(2000))},
        )
    )
    fine = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "q?", "answer": "a."}))
    process(alice.client)
    assert source(alice, fake["uuid"])["status"].startswith("error:")
    assert source(alice, fine["uuid"])["status"] == "success"


def test_rescrape_replaces_changed_content_and_skips_unchanged(alice: Api, bot: str, db: Db, site: WebSite) -> None:
    site.pages["/news"] = Page(ARTICLE)
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/news")}))
    process(alice.client)
    first = [chunk.uuid for chunk in chunks(db, created["uuid"])]
    version = knowledge_version(db, bot)

    alice.ok(alice.post("/data-sources/url/re-scrape", {"uuids": [created["uuid"]]}))
    process(alice.client)
    assert [chunk.uuid for chunk in chunks(db, created["uuid"])] == first  # same content: chunks untouched
    assert knowledge_version(db, bot) == version
    assert source(alice, created["uuid"])["status"] == "success"

    site.pages["/news"] = Page(ARTICLE.replace(b"free of charge", b"two euros per parcel"))
    alice.ok(alice.post("/data-sources/url/re-scrape", {"uuids": [created["uuid"]]}))
    process(alice.client)
    after = chunks(db, created["uuid"])
    assert not {chunk.uuid for chunk in after} & set(first)
    assert "two euros per parcel" in " ".join(chunk.text for chunk in after)
    assert knowledge_version(db, bot) == version + 1


def test_deleting_a_source_removes_its_chunks_and_its_waiting_job(alice: Api, bot: str, db: Db) -> None:
    done = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "q?", "answer": "a."}))
    process(alice.client)
    assert len(chunks(db, done["uuid"])) == 1
    waiting = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "q2?", "answer": "a2."}))
    alice.ok(alice.post("/data-sources/delete", {"uuids": [done["uuid"], waiting["uuid"]]}))
    assert chunks(db, done["uuid"]) == []

    async def jobs(session: AsyncSession) -> int:
        return int(await session.scalar(select(func.count()).select_from(Job)) or 0)

    assert db.run(jobs) == 0


def test_deleting_the_chatbot_removes_its_chunks_and_jobs_and_spares_the_others(alice: Api, bot: str, db: Db) -> None:
    other = alice.chatbot("other")["uuid"]
    kept = alice.ok(alice.post(f"/chatbot/{other}/data-source/qa", {"question": "Kept?", "answer": "Yes."}))
    done = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "q?", "answer": "a."}))
    process(alice.client)
    alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "q2?", "answer": "a2."}))  # its job waits

    async def counts(session: AsyncSession) -> tuple[int, int]:
        chunk_count = await session.scalar(select(func.count()).select_from(Chunk).where(Chunk.chatbot_uuid == bot))
        job_count = await session.scalar(select(func.count()).select_from(Job).where(Job.status == "queued"))
        return int(chunk_count or 0), int(job_count or 0)

    assert db.run(counts) == (1, 1)
    alice.ok(alice.delete(f"/chatbot/{bot}/delete"))
    assert db.run(counts) == (0, 0)
    assert chunks(db, done["uuid"]) == []
    assert len(chunks(db, kept["uuid"])) == 1
