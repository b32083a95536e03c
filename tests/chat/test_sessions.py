"""Chat sessions: create (with or without a body, with initial variables), fetch, list with time filters, delete."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from botyard.models import ChatSession, Message
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_timestamp, assert_uuid
from tests.support.database import Db
from tests.support.sessions import add_messages, add_session, count, session

SUMMARY_KEYS = {"uuid", "created_at", "modified_at"}
SESSION_KEYS = {"uuid", "created_at", "modified_at", "meta"}
T0 = datetime(2024, 7, 25, 10, 0, 0, tzinfo=UTC)


# Helpers shared with test_messages.py: rows the API cannot create yet go in through the app's own database.


def listed(api: Api, bot: str, **params: Any) -> list[str]:
    return [item["uuid"] for item in api.ok(api.get(f"/chatbot/{bot}/sessions", params=params))]


# Create


def test_create_has_exact_shape_and_default_meta(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    created = session(alice, bot)
    assert set(created) == SUMMARY_KEYS
    assert_uuid(created["uuid"])
    assert_timestamp(created["created_at"])
    assert_timestamp(created["modified_at"])
    fetched = alice.ok(alice.get(f"/session/{created['uuid']}"))
    assert set(fetched) == SESSION_KEYS
    assert {key: fetched[key] for key in SUMMARY_KEYS} == created
    assert fetched["meta"] == {"variables": {}, "human_requested": False, "tags": []}


def test_create_accepts_no_body_empty_body_json_without_body_nulls_and_extras(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    path = f"/api/v1/chatbot/{bot}/session/create"
    json_no_body = {**alice.auth, "Content-Type": "application/json"}
    responses = [
        alice.client.post(path, headers=alice.auth),
        alice.client.post(path, headers=json_no_body),
        alice.client.post(path, headers={**alice.auth, "Content-Type": "application/jsn"}),
        alice.post(f"/chatbot/{bot}/session/create", {}),
        alice.post(f"/chatbot/{bot}/session/create", {"initial_variables": None, "stream": False}),
    ]
    for response in responses:
        created = alice.ok(response)
        assert set(created) == SUMMARY_KEYS
        meta = alice.ok(alice.get(f"/session/{created['uuid']}"))["meta"]
        assert meta == {"variables": {}, "human_requested": False, "tags": []}
    assert len(listed(alice, bot)) == len(responses)


def test_create_stores_initial_variables(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    variables = {"name": "Ada", "age": 36, "score": 0.5, "vip": True, "note": "1"}
    created = session(alice, bot, {"initial_variables": variables})
    assert set(created) == SUMMARY_KEYS
    meta = alice.ok(alice.get(f"/session/{created['uuid']}"))["meta"]
    assert meta == {"initial_variables": variables, "variables": variables, "human_requested": False, "tags": []}
    empty = session(alice, bot, {"initial_variables": {}})
    meta = alice.ok(alice.get(f"/session/{empty['uuid']}"))["meta"]
    assert meta == {"initial_variables": {}, "variables": {}, "human_requested": False, "tags": []}


@pytest.mark.parametrize(
    "initial_variables",
    ["name=Ada", ["Ada"], 5, True, {"a": {"b": 1}}, {"a": None}, {"a": [1]}, {"": "empty name"}],
)
def test_create_rejects_bad_initial_variables(alice: Api, initial_variables: Any) -> None:
    bot = alice.chatbot()["uuid"]
    response = alice.post(f"/chatbot/{bot}/session/create", {"initial_variables": initial_variables})
    error = assert_error(response, 422, "validation_error")
    assert any(detail["field"].startswith("initial_variables") for detail in error["details"]), error
    assert listed(alice, bot) == []


def test_create_rejects_malformed_json(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    response = alice.client.post(
        f"/api/v1/chatbot/{bot}/session/create", headers=alice.auth, content=b'{"initial_variables": '
    )
    assert_error(response, 400, "invalid_json")
    assert listed(alice, bot) == []


# List and time filters


def test_list_is_exact_oldest_first_and_per_chatbot(alice: Api) -> None:
    bot, other = alice.chatbot("one")["uuid"], alice.chatbot("two")["uuid"]
    first, second = session(alice, bot), session(alice, bot)
    session(alice, other)
    sessions = alice.ok(alice.get(f"/chatbot/{bot}/sessions"))
    assert sessions == [first, second]
    assert all(set(item) == SUMMARY_KEYS for item in sessions)
    assert alice.ok(alice.get(f"/chatbot/{alice.chatbot('empty')['uuid']}/sessions")) == []


@pytest.fixture
def timed(alice: Api, db: Db) -> tuple[str, dict[str, str]]:
    """A chatbot whose sessions were created around 2024-07-25T10:00:00Z, added out of order."""
    bot = alice.chatbot()["uuid"]
    moments = {
        "next_day": datetime(2024, 7, 26, tzinfo=UTC),
        "after": T0 + timedelta(seconds=1),
        "before": T0 - timedelta(microseconds=100_000),
        "at": T0,
        "within": T0 + timedelta(microseconds=700_000),
    }
    return bot, {name: add_session(db, bot, moment) for name, moment in moments.items()}


ALL = ["before", "at", "within", "after", "next_day"]
EPOCH = int(T0.timestamp())


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, ALL),
        ({"start_timestamp": "", "end_timestamp": ""}, ALL),
        ({"start_timestamp": "2024-07-25T10:00:00Z"}, ["at", "within", "after", "next_day"]),
        ({"end_timestamp": "2024-07-25T10:00:00Z"}, ["before", "at", "within"]),
        ({"start_timestamp": "2024-07-25T10:00:00Z", "end_timestamp": "2024-07-25T10:00:00Z"}, ["at", "within"]),
        ({"start_timestamp": "2024-07-25T10:00:00.500Z", "end_timestamp": "2024-07-25T10:00:00.2Z"}, ["at", "within"]),
        ({"start_timestamp": "2024-07-25T10:00:01Z"}, ["after", "next_day"]),
        ({"end_timestamp": "2024-07-25T09:59:59Z"}, ["before"]),
        ({"start_timestamp": "2024-07-25T12:00:00+02:00"}, ["at", "within", "after", "next_day"]),
        ({"end_timestamp": "2024-07-25T05:00:00-05:00"}, ["before", "at", "within"]),
        ({"start_timestamp": "2024-07-25T10:00:00"}, ["at", "within", "after", "next_day"]),
        ({"start_timestamp": "2024-07-26"}, ["next_day"]),
        ({"end_timestamp": "2024-07-26"}, ALL),
        ({"end_timestamp": "2024-07-25"}, []),
        ({"start_timestamp": str(EPOCH)}, ["at", "within", "after", "next_day"]),
        ({"start_timestamp": EPOCH, "end_timestamp": EPOCH}, ["at", "within"]),
        ({"end_timestamp": f"{EPOCH + 0.9}"}, ["before", "at", "within"]),
        ({"start_timestamp": f"{EPOCH - 0.5}", "end_timestamp": f"{EPOCH - 0.5}"}, ["before"]),
        ({"start_timestamp": EPOCH + 1, "end_timestamp": EPOCH}, []),
        ({"start_timestamp": "2024-07-27T00:00:00Z"}, []),
    ],
)
def test_list_filters_on_creation_time_inclusively(
    alice: Api, timed: tuple[str, dict[str, str]], params: dict[str, Any], expected: list[str]
) -> None:
    bot, uuids = timed
    assert listed(alice, bot, **params) == [uuids[name] for name in expected]


def test_list_accepts_an_offset_whose_plus_arrived_as_a_space(alice: Api, timed: tuple[str, dict[str, str]]) -> None:
    bot, uuids = timed
    response = alice.get(f"/chatbot/{bot}/sessions?start_timestamp=2024-07-25T12:00:01+02:00")
    assert [item["uuid"] for item in alice.ok(response)] == [uuids["after"], uuids["next_day"]]


@pytest.mark.parametrize("value", ["yesterday", "2024-13-01", "2024-07-25T25:00:00Z", "nan", "1e9", "99999999999999"])
@pytest.mark.parametrize("param", ["start_timestamp", "end_timestamp"])
def test_list_rejects_unparseable_timestamps(alice: Api, param: str, value: str) -> None:
    bot = alice.chatbot()["uuid"]
    error = assert_error(alice.get(f"/chatbot/{bot}/sessions", params={param: value}), 422, "validation_error")
    assert param in error["error"]
    assert any(detail["field"].endswith(param) for detail in error["details"]), error


# Delete


@pytest.mark.parametrize("method", ["POST", "DELETE"])
def test_delete_removes_the_session_and_its_messages(alice: Api, db: Db, method: str) -> None:
    bot = alice.chatbot()["uuid"]
    doomed, kept = session(alice, bot), session(alice, bot)
    add_messages(db, doomed["uuid"], ("q1", "r1"), ("q2", "r2"))
    add_messages(db, kept["uuid"], ("q3", "r3"))
    response = alice.client.request(method, f"/api/v1/session/{doomed['uuid']}/delete", headers=alice.auth)
    assert alice.ok(response) == {"success": True}
    assert_not_found(alice.get(f"/session/{doomed['uuid']}"))
    assert_not_found(alice.get(f"/session/{doomed['uuid']}/messages"))
    assert listed(alice, bot) == [kept["uuid"]]
    assert count(db, Message) == 1
    assert_not_found(alice.client.request(method, f"/api/v1/session/{doomed['uuid']}/delete", headers=alice.auth))


def test_deleting_the_chatbot_removes_its_sessions_and_messages(alice: Api, db: Db) -> None:
    bot, other = alice.chatbot()["uuid"], alice.chatbot()["uuid"]
    doomed, kept = session(alice, bot), session(alice, other)
    add_messages(db, doomed["uuid"], ("q1", "r1"))
    add_messages(db, kept["uuid"], ("q2", "r2"))
    assert alice.ok(alice.delete(f"/chatbot/{bot}/delete")) == {"success": True}
    assert_not_found(alice.get(f"/session/{doomed['uuid']}"))
    assert (count(db, ChatSession), count(db, Message)) == (1, 1)
    assert alice.ok(alice.get(f"/session/{kept['uuid']}"))["uuid"] == kept["uuid"]


# Another account's objects answer exactly like missing ones


def test_foreign_and_missing_sessions_and_chatbots_are_identical_404(alice: Api, bob: Api, db: Db) -> None:
    bobs_bot = bob.chatbot()["uuid"]
    bobs = session(bob, bobs_bot, {"initial_variables": {"name": "Bob"}})
    add_messages(db, bobs["uuid"], ("q", "r"))
    bob_before = (
        bob.ok(bob.get(f"/session/{bobs['uuid']}")),
        bob.ok(bob.get(f"/chatbot/{bobs_bot}/sessions")),
        bob.ok(bob.get(f"/session/{bobs['uuid']}/messages")),
    )
    calls = [
        ("POST", "/chatbot/{}/session/create", {"initial_variables": {"x": 1}}),
        ("GET", "/chatbot/{}/sessions", None),
        ("GET", "/session/{}", None),
        ("GET", "/session/{}/messages", None),
        ("GET", "/session/{}/messages/plain-text", None),
        ("POST", "/session/{}/delete", None),
        ("DELETE", "/session/{}/delete", None),
    ]
    for method, template, body in calls:
        target = bobs_bot if "chatbot" in template else bobs["uuid"]
        answers = [
            alice.client.request(method, "/api/v1" + template.format(uuid), headers=alice.auth, json=body)
            for uuid in (target, MISSING, "not-a-uuid")
        ]
        for answer in answers:
            assert_not_found(answer)
        assert answers[0].json() == answers[1].json() == answers[2].json(), template
    after = (
        bob.ok(bob.get(f"/session/{bobs['uuid']}")),
        bob.ok(bob.get(f"/chatbot/{bobs_bot}/sessions")),
        bob.ok(bob.get(f"/session/{bobs['uuid']}/messages")),
    )
    assert after == bob_before
    assert count(db, ChatSession) == 1
