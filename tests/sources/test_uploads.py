"""File uploads: accepted types, stored bytes, refusals, the size cap and duplicate files."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.main import create_app
from botyard.models import DataSource, Job, SourceFile
from botyard.sources.repository import DataSourceRepository
from tests.support.api import MISSING, Api, assert_error, assert_not_found
from tests.support.database import Db
from tests.support.sources import assert_source, count_sources, link, qa, sources, upload, upload_response

SAMPLES = [
    ("notes.txt", "text/plain"),
    ("guide.md", "text/markdown"),
    ("prices.csv", "text/csv"),
    ("faq.html", "text/html"),
    ("settings.json", "application/json"),
    ("hello.pdf", "application/pdf"),
]


def stored_files(db: Db) -> dict[str, SourceFile]:
    async def go(session: AsyncSession) -> dict[str, SourceFile]:
        return {file.data_source_uuid: file for file in (await session.execute(select(SourceFile))).scalars()}

    return db.run(go)


@pytest.mark.parametrize(("name", "content_type"), SAMPLES)
def test_upload_sample_files(alice: Api, db: Db, sample_dir: Path, name: str, content_type: str) -> None:
    bot = alice.chatbot()["uuid"]
    content = (sample_dir / name).read_bytes()
    source = alice.ok(upload_response(alice, bot, name, content, content_type))
    assert assert_source(source, "upload") == {"content_type": content_type}
    assert source["title"] == source["file_name"] == name
    assert source["file_size"] == len(content)
    assert sources(alice, bot) == [source]
    stored = stored_files(db)[source["uuid"]]
    assert stored.content == content
    assert stored.sha256 == hashlib.sha256(content).hexdigest()
    assert stored.content_type == content_type


def test_upload_with_reference_link(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    source = upload(alice, bot, "notes.txt", b"hours", reference_source_link="https://example.com/hours")
    assert json.loads(source["meta_json"]) == {
        "reference_source_link": "https://example.com/hours",
        "content_type": "text/plain",
    }


def test_upload_without_content_type_keeps_meta_empty(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    response = alice.client.post(
        f"/api/v1/chatbot/{bot}/data-source/upload", headers=alice.auth, files={"file": ("plain.txt", b"bytes")}
    )
    source = alice.ok(response)
    # httpx guesses a content type from the name; whatever the client sent is what is kept.
    meta = json.loads(source["meta_json"])
    assert set(meta) <= {"content_type"}
    assert stored_files(db)[source["uuid"]].content_type == meta.get("content_type", "application/octet-stream")


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("REPORT.PDF", "REPORT.PDF"),
        ("Notes.TxT", "Notes.TxT"),
        ("slides.pptx", "slides.pptx"),
        ("sheet.xlsx", "sheet.xlsx"),
        ("old.xls", "old.xls"),
        ("letter.doc", "letter.doc"),
        ("letter.docx", "letter.docx"),
        ("paper.tex", "paper.tex"),
        ("page.htm", "page.htm"),
        ("C:\\Users\\me\\Documents\\report.txt", "report.txt"),
        ("../../etc/notes.md", "notes.md"),
        ("dir/sub/data.csv", "data.csv"),
    ],
)
def test_upload_names_and_allowed_extensions(alice: Api, sent: str, kept: str) -> None:
    bot = alice.chatbot()["uuid"]
    source = upload(alice, bot, sent, f"content of {sent}".encode())
    assert source["file_name"] == source["title"] == kept


@pytest.mark.parametrize("name", ["setup.exe", "archive.zip", "README", "notes.", "notes.txt.exe", "image.png", ".txt"])
def test_disallowed_file_types_are_415_and_write_nothing(alice: Api, db: Db, name: str) -> None:
    bot = alice.chatbot()["uuid"]
    response = upload_response(alice, bot, name, b"MZ\x90\x00 not a document", "application/octet-stream")
    body = assert_error(response, 415, "file_type_not_allowed")
    assert "file type not allowed" in body["error"]
    assert count_sources(db) == 0
    assert stored_files(db) == {}


def test_empty_file_is_422(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    body = assert_error(upload_response(alice, bot, "empty.txt", b""), 422, "validation_error")
    assert body["details"][0]["field"] == "file"
    assert count_sources(db) == 0


def test_missing_file_part_is_422(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    path = f"/api/v1/chatbot/{bot}/data-source/upload"
    no_file = alice.client.post(path, headers=alice.auth, data={"reference_source_link": "https://example.com/"})
    body = assert_error(no_file, 422, "validation_error")
    assert any(detail["field"] == "file" for detail in body["details"]), body
    plain_field = alice.client.post(path, headers=alice.auth, data={"file": "not a file"})
    assert_error(plain_field, 422, "validation_error")
    wrong_part = alice.client.post(path, headers=alice.auth, files={"document": ("a.txt", b"x", "text/plain")})
    assert_error(wrong_part, 422, "validation_error")
    assert_error(alice.client.post(path, headers=alice.auth), 422, "validation_error")
    assert count_sources(db) == 0


@pytest.mark.parametrize("reference", ["ftp://example.com/", "no url", "https://"])
def test_invalid_reference_link_is_422(alice: Api, db: Db, reference: str) -> None:
    bot = alice.chatbot()["uuid"]
    response = upload_response(alice, bot, "notes.txt", b"x", reference_source_link=reference)
    body = assert_error(response, 422, "validation_error")
    assert any(detail["field"] == "reference_source_link" for detail in body["details"]), body
    assert count_sources(db) == 0


def test_same_bytes_again_is_409_with_the_existing_source(alice: Api, db: Db, sample_dir: Path) -> None:
    bot = alice.chatbot()["uuid"]
    content = (sample_dir / "guide.md").read_bytes()
    first = upload(alice, bot, "guide.md", content)
    again = upload_response(alice, bot, "renamed-copy.txt", content, reference_source_link="https://example.com/")
    assert again.status_code == 409, again.text
    assert again.json() == first
    assert sources(alice, bot) == [first]
    assert list(stored_files(db)) == [first["uuid"]]
    changed = upload(alice, bot, "guide.md", content + b"\n")
    assert sources(alice, bot) == [first, changed]


def test_same_bytes_in_another_chatbot_or_account_is_allowed(alice: Api, bob: Api) -> None:
    one, two = alice.chatbot("one")["uuid"], alice.chatbot("two")["uuid"]
    uuids = {
        upload(alice, one, "a.txt", b"shared")["uuid"],
        upload(alice, two, "a.txt", b"shared")["uuid"],
        upload(bob, bob.chatbot()["uuid"], "a.txt", b"shared")["uuid"],
    }
    assert len(uuids) == 3


def test_deleting_an_upload_deletes_its_file(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    kept, doomed = upload(alice, bot, "a.txt", b"kept"), upload(alice, bot, "b.txt", b"doomed")
    alice.ok(alice.post(f"/data-source/{doomed['uuid']}/delete"))
    assert list(stored_files(db)) == [kept["uuid"]]
    alice.ok(alice.post("/data-sources/delete", {"uuids": [kept["uuid"]]}))
    assert stored_files(db) == {}
    # The same bytes can be uploaded again once the source is gone.
    assert upload(alice, bot, "b.txt", b"doomed")["uuid"] != doomed["uuid"]


def test_upload_to_foreign_or_missing_chatbot_is_the_same_404(alice: Api, bob: Api, db: Db) -> None:
    bobs_bot = bob.chatbot()["uuid"]
    foreign = upload_response(alice, bobs_bot, "x.txt", b"intruder")
    missing = upload_response(alice, MISSING, "x.txt", b"intruder")
    assert_not_found(foreign)
    assert foreign.json() == missing.json()
    # The chatbot is checked before the file: a refused type does not tell a foreign chatbot from a missing one.
    assert_not_found(upload_response(alice, bobs_bot, "x.exe", b"intruder"))
    assert count_sources(db) == 0


# The size cap, on an app configured with a 1 MB cap over the same database.

MB = 1024 * 1024


@pytest.fixture
def capped(settings: Settings, alice: Api) -> Iterator[Api]:
    small = settings.model_copy(update={"max_upload_mb": 1})
    with TestClient(create_app(small), raise_server_exceptions=False) as client:
        yield Api(client, alice.key)


def test_file_at_the_cap_is_accepted(capped: Api) -> None:
    bot = capped.chatbot()["uuid"]
    assert upload(capped, bot, "big.txt", b"a" * MB)["file_size"] == MB


@pytest.mark.parametrize(
    ("size", "refused_by"),
    [
        # Within the body guard's allowance for multipart framing: the upload's chunked read refuses it.
        (MB + 1, "File too large"),
        (MB + 60 * 1024, "File too large"),
        # Past the allowance: the body guard refuses the request before the handler runs.
        (2 * MB, "Request body too large"),
    ],
)
def test_file_over_the_cap_is_413_and_writes_nothing(capped: Api, db: Db, size: int, refused_by: str) -> None:
    bot = capped.chatbot()["uuid"]
    response = upload_response(capped, bot, "big.txt", b"a" * size)
    assert assert_error(response, 413, "payload_too_large")["error"].startswith(refused_by)
    assert count_sources(db) == 0
    assert stored_files(db) == {}


def test_oversize_declared_length_is_refused_up_front(capped: Api, db: Db) -> None:
    bot = capped.chatbot()["uuid"]
    headers = {
        **capped.auth,
        "Content-Type": "multipart/form-data; boundary=x",
        "Content-Length": str(5 * MB),
    }
    response = capped.client.post(f"/api/v1/chatbot/{bot}/data-source/upload", headers=headers, content=b"--x--")
    assert_error(response, 413, "payload_too_large")
    assert count_sources(db) == 0


# Processing and concurrent duplicates


def _queued_jobs(db: Db) -> list[str]:
    """The sources with a processing job waiting, in the order the jobs were queued."""

    async def go(session: AsyncSession) -> list[str]:
        statement = select(Job.data_source_uuid).where(Job.status == "queued").order_by(Job.created_at)
        return [str(uuid) for uuid in await session.scalars(statement)]

    return db.run(go)


def test_processing_is_queued_on_create_rescrape_and_restart(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    created = [qa(alice, bot)["uuid"], link(alice, bot)["uuid"], upload(alice, bot)["uuid"]]
    assert _queued_jobs(db) == created
    # Duplicates are not processed again.
    assert alice.post(f"/chatbot/{bot}/data-source/url", {"url": "https://example.com/docs"}).status_code == 409
    assert upload_response(alice, bot, "copy.txt", b"some notes").status_code == 409
    assert _queued_jobs(db) == created
    # A re-scrape replaces the source's waiting job instead of adding a second one.
    alice.ok(alice.post("/data-sources/url/re-scrape", {"uuids": [created[1], created[0]]}))
    assert sorted(_queued_jobs(db)) == sorted(created)
    assert _queued_jobs(db)[-1] == created[1]
    alice.ok(alice.client.post("/api/data-sources/restart", headers=alice.auth, json={"uuids": [created[2]]}))
    assert _queued_jobs(db)[-1] == created[2]
    assert len(_queued_jobs(db)) == 3


def test_a_concurrent_duplicate_is_refused_by_the_database_and_keeps_the_transaction(alice: Api, db: Db) -> None:
    """Two requests that both passed the existence check: the unique key refuses the second insert inside a
    savepoint (its file included), so the request's transaction stays usable to read the winner and answer 409."""
    bot = alice.chatbot()["uuid"]
    winner = upload(alice, bot, "a.txt", b"same bytes")
    digest = hashlib.sha256(b"same bytes").hexdigest()

    async def race(session: AsyncSession) -> tuple[bool, str | None]:
        repository = DataSourceRepository(session)
        loser = DataSource(chatbot_uuid=bot, type="upload", dedupe_key="sha256:" + digest)
        added = await repository.add_unique(loser, SourceFile(sha256=digest, content=b"same bytes"))
        existing = await repository.by_dedupe_key(bot, "sha256:" + digest)
        return added, existing.uuid if existing else None

    assert db.run(race) == (False, winner["uuid"])
    assert sources(alice, bot) == [winner]
    assert list(stored_files(db)) == [winner["uuid"]]
