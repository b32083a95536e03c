"""Messages of a session: list, one message, the plain-text transcript (a JSON string), delete (single and bulk),
and the 405 on `/message`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from botyard.models import Message
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_timestamp
from tests.support.database import Db
from tests.support.sessions import MESSAGE_KEYS, add_messages, count, session

CITE = {"1.1": {"data_source_uuid": "a" * 32, "title": "Hours", "text": "9 to 5", "file_name": "", "type": "qa"}}
META = {"actual_token_distribution": {"total_tokens": 42}, "functions_called": [{"name": "f", "content": "{}"}]}


def new_session(api: Api) -> str:
    uuid: str = session(api, api.chatbot()["uuid"])["uuid"]
    return uuid


def messages(api: Api, session_uuid: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = api.ok(api.get(f"/session/{session_uuid}/messages"))
    return listed


def uuids_of(api: Api, session_uuid: str) -> list[str]:
    return [message["uuid"] for message in messages(api, session_uuid)]


# List


def test_list_has_exact_keys_in_order_with_json_strings(alice: Api, db: Db) -> None:
    chat = new_session(alice)
    assert messages(alice, chat) == []
    plain = add_messages(db, chat, ("Hi", "Hello!"), ("Hours?", "9 to 5."))
    cited = add_messages(db, chat, ("Where?", "Here [1.1]"), cite_data=CITE, meta=META, finish_reason="length")
    listed = messages(alice, chat)
    assert [message["uuid"] for message in listed] == plain + cited
    for message in listed:
        assert set(message) == MESSAGE_KEYS
        assert "cite_data" not in message
        assert isinstance(message["cite_data_json"], str) and isinstance(message["meta_json"], str)
        assert_timestamp(message["created_at"])
        assert_timestamp(message["modified_at"])
    first, last = listed[0], listed[-1]
    assert (first["query"], first["response"], first["finish_reason"]) == ("Hi", "Hello!", "stop")
    assert first["cite_data_json"] == "{}"
    assert first["meta_json"] == "{}"
    assert (last["query"], last["response"], last["finish_reason"]) == ("Where?", "Here [1.1]", "length")
    assert json.loads(last["cite_data_json"]) == CITE
    assert json.loads(last["meta_json"]) == META


def test_one_message_has_the_same_keys_and_values_as_the_list(alice: Api, db: Db) -> None:
    chat = new_session(alice)
    uuids = add_messages(db, chat, ("Hi", "Hello!"), ("Where?", "Here [1.1]"), cite_data=CITE, meta=META)
    listed = messages(alice, chat)
    assert [alice.ok(alice.get(f"/message/{uuid}")) for uuid in uuids] == listed
    alice.ok(alice.post(f"/message/{uuids[0]}/delete"))
    assert_not_found(alice.get(f"/message/{uuids[0]}"))


def test_list_shows_only_the_sessions_own_messages(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    one, two = session(alice, bot)["uuid"], session(alice, bot)["uuid"]
    mine = add_messages(db, one, ("a", "b"))
    add_messages(db, two, ("c", "d"))
    assert uuids_of(alice, one) == mine


# Plain-text transcript


def transcript(api: Api, session_uuid: str) -> str:
    response = api.get(f"/session/{session_uuid}/messages/plain-text")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    text: str = response.json()  # as the hosted docs' own example reads it
    assert isinstance(text, str)
    return text


def test_transcript_is_a_json_string_with_one_line_per_turn(alice: Api, db: Db) -> None:
    chat = new_session(alice)
    assert transcript(alice, chat) == ""
    add_messages(
        db,
        chat,
        ("Hi", "Hello!"),
        ("Öffnungszeiten? 🕘", "Line one\nline two\r\n\n  - item\u2028end"),
        ("Two\nlines?", ""),
    )
    text = transcript(alice, chat)
    assert text == (
        "User: Hi\nAssistant: Hello!\n"
        "User: Öffnungszeiten? 🕘\nAssistant: Line one line two - item end\n"
        "User: Two lines?\nAssistant: "
    )
    lines = text.split("\n")
    assert len(lines) == 6 and all(line.strip() for line in lines)  # one line per turn, none blank
    assert [line.split(": ", 1)[0] for line in lines] == ["User", "Assistant"] * 3


# Delete one


def test_delete_one_message(alice: Api, db: Db) -> None:
    chat = new_session(alice)
    first, second, third = add_messages(db, chat, ("1", "a"), ("2", "b"), ("3", "c"))
    assert alice.ok(alice.post(f"/message/{second}/delete")) == {"success": True}
    assert uuids_of(alice, chat) == [first, third]
    assert_not_found(alice.post(f"/message/{second}/delete"))
    assert alice.ok(alice.get(f"/session/{chat}"))["uuid"] == chat


def test_delete_one_foreign_or_missing_message_is_identical_404(alice: Api, bob: Api, db: Db) -> None:
    bobs_chat = new_session(bob)
    bobs = add_messages(db, bobs_chat, ("bob's", "secret"))
    before = messages(bob, bobs_chat)
    answers = [alice.post(f"/message/{uuid}/delete") for uuid in (bobs[0], MISSING, "not-a-uuid")]
    for answer in answers:
        assert_not_found(answer)
    assert answers[0].json() == answers[1].json() == answers[2].json()
    assert messages(bob, bobs_chat) == before


# Delete many


def test_bulk_delete(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    one, two = session(alice, bot)["uuid"], session(alice, bot)["uuid"]
    a, b, c = add_messages(db, one, ("1", "a"), ("2", "b"), ("3", "c"))
    (d,) = add_messages(db, two, ("4", "d"))
    assert alice.ok(alice.post("/messages/delete", {"uuids": [a, d, a, c], "stream": False})) == {"success": True}
    assert uuids_of(alice, one) == [b]
    assert uuids_of(alice, two) == []
    assert alice.ok(alice.post("/messages/delete", {"uuids": []})) == {"success": True}
    assert uuids_of(alice, one) == [b]


def test_bulk_delete_is_all_or_nothing(alice: Api, bob: Api, db: Db) -> None:
    chat = new_session(alice)
    mine = add_messages(db, chat, ("1", "a"), ("2", "b"))
    bobs_chat = new_session(bob)
    bobs = add_messages(db, bobs_chat, ("bob's", "secret"))
    bob_before = messages(bob, bobs_chat)
    uuids = [mine[0], MISSING, "not-a-uuid", bobs[0], mine[1], MISSING]
    body = assert_error(alice.post("/messages/delete", {"uuids": uuids}), 422, "unknown_uuids")
    assert body["details"] == [
        {"uuid": MISSING, "error": "invalid message"},
        {"uuid": "not-a-uuid", "error": "invalid message"},
        {"uuid": bobs[0], "error": "invalid message"},
    ]
    assert uuids_of(alice, chat) == mine
    assert messages(bob, bobs_chat) == bob_before
    assert count(db, Message) == 3


@pytest.mark.parametrize("body", [None, {}, {"uuids": "abc"}, {"uuids": [1, 2]}, {"ids": []}, {"uuids": None}])
def test_bulk_delete_rejects_malformed_bodies(alice: Api, db: Db, body: Any) -> None:
    chat = new_session(alice)
    mine = add_messages(db, chat, ("1", "a"))
    assert_error(alice.post("/messages/delete", body), 422, "validation_error")
    assert uuids_of(alice, chat) == mine


# Posting to `/message` without `/stream` or `/non-stream`


@pytest.mark.parametrize("method", ["POST", "GET", "PUT", "PATCH", "DELETE"])
def test_message_without_mode_is_405(alice: Api, db: Db, method: str) -> None:
    chat = new_session(alice)
    for uuid in (chat, MISSING):
        for headers in (alice.auth, {}):
            response = alice.client.request(
                method, f"/api/v1/session/{uuid}/message", headers=headers, json={"query": "hi"}
            )
            body = assert_error(response, 405, "method_not_allowed")
            assert "/message/stream" in body["error"]
            assert response.headers["allow"] == ""
    assert messages(alice, chat) == []
