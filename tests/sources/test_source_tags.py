"""Source tags: create, list, fetch, partial update, delete; sources of the same chatbot only."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import SourceTag, SourceTagMember
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_timestamp, assert_uuid
from tests.support.database import Db
from tests.support.sources import call, link, qa, upload

TAG_KEYS = {"uuid", "name", "color", "data_source_uuids", "created_at", "modified_at"}


def create_tag(api: Api, bot: str, name: str = "Billing", color: str = "#1A2B3C", **extra: Any) -> Any:
    return api.ok(api.post(f"/chatbot/{bot}/source-tag/create", {"name": name, "color": color, **extra}))


def tags(api: Api, bot: str) -> Any:
    return api.ok(api.get(f"/chatbot/{bot}/source-tags"))


def count_tag_rows(db: Db) -> tuple[int, int]:
    async def go(session: AsyncSession) -> tuple[int, int]:
        tag_rows = (await session.execute(select(SourceTag.uuid))).all()
        member_rows = (await session.execute(select(SourceTagMember.tag_uuid))).all()
        return len(tag_rows), len(member_rows)

    return db.run(go)


@pytest.fixture
def bot(alice: Api) -> str:
    uuid: str = alice.chatbot()["uuid"]
    return uuid


@pytest.fixture
def three(alice: Api, bot: str) -> list[str]:
    """Three sources of the chatbot, one of each type."""
    return [qa(alice, bot)["uuid"], link(alice, bot)["uuid"], upload(alice, bot)["uuid"]]


def test_create_has_exact_shape(alice: Api, bot: str, three: list[str]) -> None:
    tag = create_tag(alice, bot, "  Billing  ", "#a1b2c3", data_source_uuids=[three[2], three[0], three[2]])
    assert set(tag) == TAG_KEYS
    assert_uuid(tag["uuid"])
    assert_timestamp(tag["created_at"])
    assert_timestamp(tag["modified_at"])
    assert tag["name"] == "Billing"
    assert tag["color"] == "#a1b2c3"
    assert tag["data_source_uuids"] == [three[2], three[0]]
    assert alice.ok(alice.get(f"/source-tag/{tag['uuid']}")) == tag


def test_create_without_sources(alice: Api, bot: str) -> None:
    assert create_tag(alice, bot)["data_source_uuids"] == []
    assert create_tag(alice, bot, data_source_uuids=None)["data_source_uuids"] == []
    assert create_tag(alice, bot, data_source_uuids=[])["data_source_uuids"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"color": "#000000"}, "name"),
        ({"name": "", "color": "#000000"}, "name"),
        ({"name": "   ", "color": "#000000"}, "name"),
        ({"name": "n" * 201, "color": "#000000"}, "name"),
        ({"name": "x"}, "color"),
        ({"name": "x", "color": "red"}, "color"),
        ({"name": "x", "color": "#12345"}, "color"),
        ({"name": "x", "color": "#1234567"}, "color"),
        ({"name": "x", "color": "#GGGGGG"}, "color"),
        ({"name": "x", "color": "123456"}, "color"),
        ({"name": "x", "color": "#000000", "data_source_uuids": "abc"}, "data_source_uuids"),
        ({"name": "x", "color": "#000000", "data_source_uuids": ["not-a-uuid"]}, "data_source_uuids"),
        ({"name": "x", "color": "#000000", "data_source_uuids": [7]}, "data_source_uuids"),
    ],
)
def test_create_rejects_invalid_bodies_and_writes_nothing(
    alice: Api, db: Db, bot: str, body: dict[str, Any], field: str
) -> None:
    error = assert_error(alice.post(f"/chatbot/{bot}/source-tag/create", body), 422, "validation_error")
    assert any(detail["field"].startswith(field) for detail in error["details"]), error
    assert count_tag_rows(db) == (0, 0)


def test_create_with_sources_of_another_chatbot_or_account_is_404(
    alice: Api, bob: Api, db: Db, bot: str, three: list[str]
) -> None:
    other_bot = alice.chatbot("other")["uuid"]
    others = qa(alice, other_bot)["uuid"]
    bobs = qa(bob, bob.chatbot()["uuid"])["uuid"]
    path = f"/chatbot/{bot}/source-tag/create"
    missing = alice.post(path, {"name": "x", "color": "#000000", "data_source_uuids": [three[0], MISSING]})
    assert_not_found(missing)
    for foreign in (others, bobs):
        response = alice.post(path, {"name": "x", "color": "#000000", "data_source_uuids": [three[0], foreign]})
        assert_not_found(response)
        assert response.json() == missing.json()
    assert count_tag_rows(db) == (0, 0)


def test_list_in_creation_order_and_per_chatbot(alice: Api, bot: str, three: list[str]) -> None:
    first = create_tag(alice, bot, "first", data_source_uuids=three[:2])
    second = create_tag(alice, bot, "second", data_source_uuids=[three[1]])
    third = create_tag(alice, bot, "third")
    create_tag(alice, alice.chatbot("other")["uuid"], "elsewhere")
    assert tags(alice, bot) == [first, second, third]


def test_update_is_partial(alice: Api, bot: str, three: list[str]) -> None:
    tag = create_tag(alice, bot, "Billing", "#111111", data_source_uuids=three[:2])
    path = f"/source-tag/{tag['uuid']}/update"
    renamed = alice.ok(alice.post(path, {"name": "Invoices", "stream": False}))
    assert set(renamed) == TAG_KEYS
    assert (renamed["name"], renamed["color"], renamed["data_source_uuids"]) == ("Invoices", "#111111", three[:2])
    recoloured = alice.ok(alice.post(path, {"color": "#ABCDEF", "name": None}))
    assert (recoloured["name"], recoloured["color"]) == ("Invoices", "#ABCDEF")
    assert recoloured["data_source_uuids"] == three[:2]
    replaced = alice.ok(alice.post(path, {"data_source_uuids": [three[2], three[0], three[2]]}))
    assert replaced["data_source_uuids"] == [three[2], three[0]]
    assert (replaced["name"], replaced["color"], replaced["created_at"]) == ("Invoices", "#ABCDEF", tag["created_at"])
    cleared = alice.ok(alice.post(path, {"data_source_uuids": []}))
    assert cleared["data_source_uuids"] == []
    assert alice.ok(alice.get(f"/source-tag/{tag['uuid']}")) == cleared
    assert tags(alice, bot) == [cleared]


def test_update_accepts_no_body_empty_body_and_nulls(alice: Api, bot: str, three: list[str]) -> None:
    tag = create_tag(alice, bot, data_source_uuids=[three[0]])
    path = f"/source-tag/{tag['uuid']}/update"
    assert alice.ok(alice.client.post(f"/api/v1{path}", headers=alice.auth)) == tag
    json_no_body = {**alice.auth, "Content-Type": "application/json"}
    assert alice.ok(alice.client.post(f"/api/v1{path}", headers=json_no_body)) == tag
    assert alice.ok(alice.post(path, {})) == tag
    assert alice.ok(alice.post(path, {"name": None, "color": None, "data_source_uuids": None})) == tag


@pytest.mark.parametrize(
    "body",
    [
        {"name": ""},
        {"name": "ok", "color": "blue"},
        {"name": "ok", "data_source_uuids": ["short"]},
        {"name": "ok", "data_source_uuids": {"a": 1}},
    ],
)
def test_update_rejects_invalid_bodies_and_changes_nothing(
    alice: Api, bot: str, three: list[str], body: dict[str, Any]
) -> None:
    tag = create_tag(alice, bot, data_source_uuids=[three[0]])
    assert_error(alice.post(f"/source-tag/{tag['uuid']}/update", body), 422, "validation_error")
    assert alice.ok(alice.get(f"/source-tag/{tag['uuid']}")) == tag


def test_update_with_foreign_sources_is_404_and_changes_nothing(
    alice: Api, bob: Api, bot: str, three: list[str]
) -> None:
    tag = create_tag(alice, bot, data_source_uuids=[three[0]])
    others = qa(alice, alice.chatbot("other")["uuid"])["uuid"]
    bobs = upload(bob, bob.chatbot()["uuid"])["uuid"]
    path = f"/source-tag/{tag['uuid']}/update"
    missing = alice.post(path, {"name": "changed", "data_source_uuids": [three[1], MISSING]})
    assert_not_found(missing)
    for foreign in (others, bobs):
        response = alice.post(path, {"name": "changed", "data_source_uuids": [three[1], foreign]})
        assert_not_found(response)
        assert response.json() == missing.json()
    assert alice.ok(alice.get(f"/source-tag/{tag['uuid']}")) == tag


def test_delete(alice: Api, db: Db, bot: str, three: list[str]) -> None:
    doomed = create_tag(alice, bot, "doomed", data_source_uuids=three)
    kept = create_tag(alice, bot, "kept", data_source_uuids=[three[1]])
    assert alice.ok(alice.delete(f"/source-tag/{doomed['uuid']}/delete")) == {"success": True}
    assert tags(alice, bot) == [kept]
    assert count_tag_rows(db) == (1, 1)
    assert_not_found(alice.get(f"/source-tag/{doomed['uuid']}"))
    assert_not_found(alice.delete(f"/source-tag/{doomed['uuid']}/delete"))
    assert_error(alice.post(f"/source-tag/{kept['uuid']}/delete"), 405, "method_not_allowed")
    # The tag's sources stay.
    assert len(alice.ok(alice.get(f"/chatbot/{bot}/data-sources"))) == 3


def test_deleting_sources_removes_them_from_tags(alice: Api, bot: str, three: list[str]) -> None:
    both = create_tag(alice, bot, "both", data_source_uuids=[three[2], three[0], three[1]])
    single = create_tag(alice, bot, "single", data_source_uuids=[three[0]])
    alice.ok(alice.post(f"/data-source/{three[0]}/delete"))
    assert alice.ok(alice.get(f"/source-tag/{both['uuid']}"))["data_source_uuids"] == [three[2], three[1]]
    assert alice.ok(alice.get(f"/source-tag/{single['uuid']}"))["data_source_uuids"] == []
    alice.ok(alice.post("/data-sources/delete", {"uuids": [three[2]]}))
    assert alice.ok(alice.get(f"/source-tag/{both['uuid']}"))["data_source_uuids"] == [three[1]]


def test_foreign_tags_answer_like_missing_ones_and_stay_unchanged(alice: Api, bob: Api) -> None:
    bobs_bot = bob.chatbot()["uuid"]
    bobs_source = qa(bob, bobs_bot)["uuid"]
    bobs_tag = create_tag(bob, bobs_bot, "bob's", data_source_uuids=[bobs_source])
    before = tags(bob, bobs_bot)
    operations: list[tuple[str, str, Any]] = [
        ("GET", "/chatbot/{bot}/source-tags", None),
        ("POST", "/chatbot/{bot}/source-tag/create", {"name": "intruder", "color": "#000000"}),
        ("GET", "/source-tag/{tag}", None),
        ("POST", "/source-tag/{tag}/update", {"name": "hijacked", "data_source_uuids": []}),
        ("POST", "/source-tag/{tag}/update", None),
        ("DELETE", "/source-tag/{tag}/delete", None),
    ]
    foreign_ids = {"bot": bobs_bot, "tag": bobs_tag["uuid"]}
    missing_ids = dict.fromkeys(foreign_ids, MISSING)
    for method, template, body in operations:
        foreign = call(alice, method, template, foreign_ids, body)
        missing = call(alice, method, template, missing_ids, body)
        assert_not_found(foreign)
        assert foreign.json() == missing.json(), template
    assert_not_found(alice.get("/source-tag/not-a-uuid"))
    assert tags(bob, bobs_bot) == before
