"""Data sources: Q&A and URL creation, listing, renaming, deletion (single and bulk), re-scrape and restart."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import DataSource
from botyard.sources.links import normalise_url
from tests.support.api import MISSING, Api, assert_error, assert_not_found
from tests.support.database import Db
from tests.support.sources import (
    SOURCE_KEYS,
    assert_source,
    call,
    count_sources,
    link,
    qa,
    sources,
    upload,
    upload_response,
)

# Helpers shared with test_uploads.py and test_source_tags.py.


def set_status(db: Db, uuid: str, status: str) -> None:
    async def go(session: AsyncSession) -> None:
        await session.execute(update(DataSource).where(DataSource.uuid == uuid).values(status=status))

    db.run(go)


# Q&A sources


def test_create_qa_has_exact_shape(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    source = qa(alice, bot, "Où est le bureau ?", "À Paris.")
    meta = assert_source(source, "qa")
    assert meta == {"question": "Où est le bureau ?", "answer": "À Paris."}
    assert source["title"] == "Où est le bureau ?"
    assert source["file_name"] == ""
    assert source["file_size"] == len("Où est le bureau ?À Paris.".encode())
    assert sources(alice, bot) == [source]


def test_create_qa_with_reference_link_and_long_question(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    question = "q" * 250
    source = qa(alice, bot, question, "a", reference_source_link="https://example.com/faq#hours", stream=False)
    assert json.loads(source["meta_json"]) == {
        "question": question,
        "answer": "a",
        "reference_source_link": "https://example.com/faq#hours",
    }
    assert source["title"] == "q" * 200


@pytest.mark.parametrize("link_value", [None, "", "   "])
def test_empty_reference_link_is_not_given(alice: Api, link_value: str | None) -> None:
    bot = alice.chatbot()["uuid"]
    source = qa(alice, bot, reference_source_link=link_value)
    assert "reference_source_link" not in json.loads(source["meta_json"])


BAD_LINKS = ["ftp://example.com/x", "not a url", "/relative/path", 5, "https://example.com/" + "x" * 2048]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (None, ""),  # no body at all
        ({}, "question"),
        ({"answer": "a"}, "question"),
        ({"question": "q"}, "answer"),
        ({"question": "", "answer": "a"}, "question"),
        ({"question": "   ", "answer": "a"}, "question"),
        ({"question": "q", "answer": "\n\t"}, "answer"),
        ({"question": 1, "answer": "a"}, "question"),
        ({"question": "q", "answer": ["a"]}, "answer"),
    ]
    + [({"question": "q", "answer": "a", "reference_source_link": bad}, "reference_source_link") for bad in BAD_LINKS],
)
def test_create_qa_rejects_invalid_bodies_and_writes_nothing(
    alice: Api, db: Db, body: dict[str, Any], field: str
) -> None:
    bot = alice.chatbot()["uuid"]
    error = assert_error(alice.post(f"/chatbot/{bot}/data-source/qa", body), 422, "validation_error")
    assert any(detail["field"].startswith(field) for detail in error["details"]), error
    assert count_sources(db) == 0


# URL sources


def test_create_url_has_exact_shape(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    source = link(alice, bot, "https://example.com/docs?page=2")
    assert assert_source(source, "link") == {"url": "https://example.com/docs?page=2"}
    assert source["title"] == source["file_name"] == "https://example.com/docs?page=2"
    assert source["file_size"] == 0
    with_reference = link(alice, bot, "http://example.org/", reference_source_link="https://example.org/about")
    assert json.loads(with_reference["meta_json"]) == {
        "url": "http://example.org/",
        "reference_source_link": "https://example.org/about",
    }
    assert sources(alice, bot) == [source, with_reference]


def test_url_of_maximum_length_is_accepted(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    url = "https://example.com/" + "a" * (2048 - len("https://example.com/"))
    assert link(alice, bot, url)["file_name"] == url


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"url": ""},
        {"url": "   "},
        {"url": "example.com/page"},
        {"url": "ftp://example.com/file"},
        {"url": "javascript:alert(1)"},
        {"url": "https://"},
        {"url": "https://exa mple.com/"},
        {"url": "https://example.com:99999/"},
        {"url": "https://example.com/" + "a" * 2048},
        {"url": 42},
        {"url": ["https://example.com/"]},
        {"url": "https://example.com/", "reference_source_link": "mailto:someone@example.com"},
    ],
)
def test_create_url_rejects_invalid_bodies_and_writes_nothing(alice: Api, db: Db, body: dict[str, Any]) -> None:
    bot = alice.chatbot()["uuid"]
    error = assert_error(alice.post(f"/chatbot/{bot}/data-source/url", body), 422, "validation_error")
    assert error["details"]
    assert count_sources(db) == 0


@pytest.mark.parametrize(
    "again",
    [
        "https://example.com/docs",
        "HTTPS://EXAMPLE.com/docs",
        "https://example.com:443/docs",
        "https://example.com/docs#section-2",
        "  https://example.com/docs  ",
    ],
)
def test_same_url_again_is_409_with_the_existing_source(alice: Api, again: str) -> None:
    bot = alice.chatbot()["uuid"]
    first = link(alice, bot, "https://example.com/docs", reference_source_link="https://example.com/")
    response = alice.post(f"/chatbot/{bot}/data-source/url", {"url": again})
    assert response.status_code == 409, response.text
    assert response.json() == first
    assert sources(alice, bot) == [first]


def test_similar_but_different_urls_are_separate_sources(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    urls = [
        "https://example.com/docs",
        "http://example.com/docs",
        "https://example.com/Docs",
        "https://example.com/docs?x=1",
        "https://docs.example.com/docs",
    ]
    for url in urls:
        link(alice, bot, url)
    assert [source["file_name"] for source in sources(alice, bot)] == urls


def test_same_url_in_another_chatbot_or_account_is_allowed(alice: Api, bob: Api) -> None:
    first_bot = alice.chatbot("one")["uuid"]
    second_bot = alice.chatbot("two")["uuid"]
    url = "https://example.com/shared"
    one = link(alice, first_bot, url)
    two = link(alice, second_bot, url)
    theirs = link(bob, bob.chatbot()["uuid"], url)
    assert len({one["uuid"], two["uuid"], theirs["uuid"]}) == 3


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("HTTPS://Example.COM/Path?Q=1#frag", "https://example.com/Path?Q=1"),
        ("http://example.com:80", "http://example.com/"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:80/a", "https://example.com:80/a"),
        ("http://User:Pw@Example.com:8080/", "http://User:Pw@example.com:8080/"),
        ("http://[::1]:80/x", "http://[::1]/x"),
    ],
)
def test_normalise_url(url: str, normal: str) -> None:
    assert normalise_url(url) == normal


# Listing, fetching, renaming


def test_list_is_in_creation_order_and_per_chatbot(alice: Api) -> None:
    bot = alice.chatbot("one")["uuid"]
    other = alice.chatbot("two")["uuid"]
    created = [qa(alice, bot, "first?"), link(alice, bot), upload(alice, bot), qa(alice, bot, "last?")]
    qa(alice, other, "elsewhere?")
    assert sources(alice, bot) == created


def test_fetch_one(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    source = qa(alice, bot)
    assert alice.ok(alice.get(f"/data-source/{source['uuid']}")) == source


def test_update_renames(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    source = link(alice, bot)
    renamed = alice.ok(alice.post(f"/data-source/{source['uuid']}/update", {"title": "  Product docs  ", "x": 1}))
    assert set(renamed) == SOURCE_KEYS
    assert renamed["title"] == "Product docs"
    assert {**renamed, "title": source["title"], "modified_at": source["modified_at"]} == source
    assert alice.ok(alice.get(f"/data-source/{source['uuid']}")) == renamed
    long_title = "t" * 500
    assert alice.ok(alice.post(f"/data-source/{source['uuid']}/update", {"title": long_title}))["title"] == long_title


@pytest.mark.parametrize(
    "body", [{}, {"title": None}, {"title": ""}, {"title": "  "}, {"title": "t" * 501}, {"title": 3}]
)
def test_update_rejects_invalid_titles_and_changes_nothing(alice: Api, body: dict[str, Any]) -> None:
    bot = alice.chatbot()["uuid"]
    source = qa(alice, bot)
    assert_error(alice.post(f"/data-source/{source['uuid']}/update", body), 422, "validation_error")
    assert alice.ok(alice.get(f"/data-source/{source['uuid']}")) == source


# Deleting


@pytest.mark.parametrize("method", ["POST", "DELETE"])
def test_delete_one(alice: Api, method: str) -> None:
    bot = alice.chatbot()["uuid"]
    doomed, kept = qa(alice, bot, "doomed?"), qa(alice, bot, "kept?")
    path = f"/api/v1/data-source/{doomed['uuid']}/delete"
    assert alice.ok(alice.client.request(method, path, headers=alice.auth)) == {"success": True}
    assert sources(alice, bot) == [kept]
    assert_not_found(alice.get(f"/data-source/{doomed['uuid']}"))
    assert_not_found(alice.client.request(method, path, headers=alice.auth))


def test_bulk_delete(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    a, b, c = qa(alice, bot, "a?"), link(alice, bot), upload(alice, bot)
    response = alice.post("/data-sources/delete", {"uuids": [a["uuid"], c["uuid"], a["uuid"]]})
    assert alice.ok(response) == {"success": True}
    assert sources(alice, bot) == [b]
    assert alice.ok(alice.post("/data-sources/delete", {"uuids": []})) == {"success": True}
    assert sources(alice, bot) == [b]


def test_bulk_delete_is_all_or_nothing(alice: Api, bob: Api) -> None:
    bot = alice.chatbot()["uuid"]
    mine = [qa(alice, bot, "a?"), qa(alice, bot, "b?")]
    bobs = qa(bob, bob.chatbot()["uuid"], "bob's?")
    uuids = [mine[0]["uuid"], MISSING, "not-a-uuid", bobs["uuid"], mine[1]["uuid"], MISSING]
    response = alice.post("/data-sources/delete", {"uuids": uuids})
    body = assert_error(response, 422, "unknown_uuids")
    assert body["details"] == [
        {"uuid": MISSING, "error": "invalid data source"},
        {"uuid": "not-a-uuid", "error": "invalid data source"},
        {"uuid": bobs["uuid"], "error": "invalid data source"},
    ]
    assert sources(alice, bot) == mine
    assert bob.ok(bob.get(f"/data-source/{bobs['uuid']}")) == bobs


@pytest.mark.parametrize("body", [None, {}, {"uuids": "abc"}, {"uuids": [1, 2]}, {"ids": []}])
def test_bulk_delete_rejects_malformed_bodies(alice: Api, body: Any) -> None:
    bot = alice.chatbot()["uuid"]
    source = qa(alice, bot)
    assert_error(alice.post("/data-sources/delete", body), 422, "validation_error")
    assert sources(alice, bot) == [source]


# Re-scrape and restart


def test_rescrape_answers_per_uuid_in_request_order(alice: Api, bob: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    first, second = link(alice, bot, "https://example.com/1"), link(alice, bot, "https://example.com/2")
    question, document = qa(alice, bot), upload(alice, bot)
    bobs = link(bob, bob.chatbot()["uuid"])
    for source in (first, second, question, document, bobs):
        set_status(db, source["uuid"], "success")
    uuids = [second["uuid"], MISSING, question["uuid"], "bad", bobs["uuid"], first["uuid"], document["uuid"]]
    results = alice.ok(alice.post("/data-sources/url/re-scrape", {"uuids": uuids}))
    ok = "restarted scraping"
    invalid = "invalid data source"
    assert results == [
        {"uuid": second["uuid"], "status": ok},
        {"uuid": MISSING, "error": invalid},
        {"uuid": question["uuid"], "error": invalid},
        {"uuid": "bad", "error": invalid},
        {"uuid": bobs["uuid"], "error": invalid},
        {"uuid": first["uuid"], "status": ok},
        {"uuid": document["uuid"], "error": invalid},
    ]
    statuses = {source["uuid"]: source["status"] for source in sources(alice, bot)}
    assert statuses == {first["uuid"]: "queued", second["uuid"]: "queued", question["uuid"]: "success"} | {
        document["uuid"]: "success"
    }
    assert bob.ok(bob.get(f"/data-source/{bobs['uuid']}"))["status"] == "success"
    assert alice.ok(alice.post("/data-sources/url/re-scrape", {"uuids": []})) == []
    assert_error(alice.post("/data-sources/url/re-scrape", {}), 422, "validation_error")


def test_restart_takes_every_type_on_the_unversioned_path(alice: Api, bob: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    mine = [qa(alice, bot), link(alice, bot), upload(alice, bot)]
    bobs = qa(bob, bob.chatbot()["uuid"])
    for source in [*mine, bobs]:
        set_status(db, source["uuid"], "error:no text")
    uuids = [source["uuid"] for source in mine] + [bobs["uuid"], MISSING, "x"]
    response = alice.client.post("/api/data-sources/restart", headers=alice.auth, json={"uuids": uuids})
    assert alice.ok(response) == [{"uuid": source["uuid"], "status": "restarted"} for source in mine] + [
        {"uuid": uuid, "error": "invalid data source"} for uuid in (bobs["uuid"], MISSING, "x")
    ]
    assert {source["status"] for source in sources(alice, bot)} == {"queued"}
    assert bob.ok(bob.get(f"/data-source/{bobs['uuid']}"))["status"] == "error:no text"
    unauthenticated = alice.client.post("/api/data-sources/restart", json={"uuids": uuids})
    assert_error(unauthenticated, 401, "unauthorized")


# Another account's objects


def test_foreign_sources_answer_like_missing_ones_and_stay_unchanged(alice: Api, bob: Api) -> None:
    bobs_bot = bob.chatbot()["uuid"]
    bobs = {"qa": qa(bob, bobs_bot), "link": link(bob, bobs_bot), "upload": upload(bob, bobs_bot)}
    before = sources(bob, bobs_bot)
    operations: list[tuple[str, str, Any]] = [
        ("POST", "/chatbot/{bot}/data-source/qa", {"question": "q", "answer": "a"}),
        ("POST", "/chatbot/{bot}/data-source/url", {"url": "https://example.com/docs"}),
        ("GET", "/chatbot/{bot}/data-sources", None),
    ]
    for kind in bobs:
        operations += [
            ("GET", f"/data-source/{{{kind}}}", None),
            ("POST", f"/data-source/{{{kind}}}/update", {"title": "hijacked"}),
            ("POST", f"/data-source/{{{kind}}}/delete", None),
            ("DELETE", f"/data-source/{{{kind}}}/delete", None),
        ]
    foreign_ids = {"bot": bobs_bot, **{kind: source["uuid"] for kind, source in bobs.items()}}
    missing_ids = dict.fromkeys(foreign_ids, MISSING)
    for method, template, body in operations:
        foreign = call(alice, method, template, foreign_ids, body)
        missing = call(alice, method, template, missing_ids, body)
        assert_not_found(foreign)
        assert foreign.json() == missing.json(), template
    foreign_upload = upload_response(alice, bobs_bot, "x.txt", b"intruder")
    missing_upload = upload_response(alice, MISSING, "x.txt", b"intruder")
    assert_not_found(foreign_upload)
    assert foreign_upload.json() == missing_upload.json()
    assert_not_found(alice.get("/data-source/not-a-uuid"))
    assert sources(bob, bobs_bot) == before
