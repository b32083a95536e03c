"""End users' feedback on answers: given through the widget API (no key: the session uuid is the capability),
shown as every message's `feedback_json`, listed for the owner at `/chatbot/{uuid}/feedback`. Real app, both
databases."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.models import MessageKind, MessageState
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_timestamp
from tests.support.chat import sse_events
from tests.support.database import Db
from tests.support.sessions import add_messages
from tests.support.widget import calling_from, widget_ask, widget_session
from tests.support.widget import give_feedback as give
from tests.support.widget import open_bot as public_bot


def feedback_json(api: Api, message: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(api.ok(api.get(f"/message/{message}"))["feedback_json"])
    return loaded


def listed(api: Api, bot: str, **params: Any) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = api.ok(api.get(f"/chatbot/{bot}/feedback", params=params))
    return entries


def test_a_widget_users_verdict_shows_on_the_message_in_the_widget_and_in_the_owners_list(
    alice: Api, client: TestClient
) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot)
    end = sse_events(widget_ask(client, chat, "Do you ship to Norway?").text)[-1]
    assert end[0] == "end"
    answer = end[1]["message_uuid"]  # the widget learns the answer's uuid from the stream's end event
    assert feedback_json(alice, answer) == {}

    given = give(client, chat, answer, {"rating": "down", "comment": "  It did not answer my question.  "})
    assert given.status_code == 200, given.text
    verdict = given.json()
    assert verdict == {
        "rating": "down",
        "comment": "It did not answer my question.",
        "created_at": verdict["created_at"],
    }
    assert_timestamp(verdict["created_at"])

    assert feedback_json(alice, answer) == verdict
    [message] = alice.ok(alice.get(f"/session/{chat}/messages"))
    assert json.loads(message["feedback_json"]) == verdict
    shown = client.get(f"/api/v1/widget/session/{chat}/messages").json()
    assert [(entry["role"], entry["feedback"]) for entry in shown] == [("user", None), ("assistant", verdict)]
    assert listed(alice, bot) == [
        {
            "message_uuid": answer,
            "session_uuid": chat,
            "query": "Do you ship to Norway?",
            "response_excerpt": message["response"],
            "rating": "down",
            "comment": "It did not answer my question.",
            "created_at": verdict["created_at"],
        }
    ]


def test_giving_feedback_again_replaces_it(alice: Api, client: TestClient, db: Db) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot)
    [answer] = add_messages(db, chat, ("Where are you?", "In Oslo."))
    assert give(client, chat, answer, {"rating": "down", "comment": "Too short"}).status_code == 200
    replaced = give(client, chat, answer, {"rating": "up"})
    assert replaced.status_code == 200
    assert feedback_json(alice, answer) == {"rating": "up", "comment": "", "created_at": replaced.json()["created_at"]}
    assert [(e["rating"], e["comment"]) for e in listed(alice, bot)] == [("up", "")]


def test_a_message_the_session_does_not_own_answers_404_like_a_missing_one(
    alice: Api, bob: Api, client: TestClient, db: Db
) -> None:
    bot, bobs_bot = public_bot(alice), public_bot(bob)
    chat, other_chat, bobs_chat = (
        widget_session(client, bot),
        widget_session(client, bot),
        widget_session(client, bobs_bot),
    )
    [other_answer] = add_messages(db, other_chat, ("Hi", "Hello!"))
    [bobs_answer] = add_messages(db, bobs_chat, ("Hi", "Hello from Bob's bot!"))
    [operator_row] = add_messages(db, chat, ("", "An operator here."), meta={"kind": MessageKind.OPERATOR.value})
    [streaming] = add_messages(db, chat, ("Still going?", "Half an ans"), state=MessageState.STREAMING.value)
    for message in (other_answer, bobs_answer, operator_row, streaming, MISSING, "not-a-uuid"):
        assert_not_found(give(client, chat, message, {"rating": "up"}))
    assert_not_found(give(client, MISSING, other_answer, {"rating": "up"}))  # an unknown session
    assert listed(alice, bot) == [] and listed(bob, bobs_bot) == []
    assert feedback_json(alice, other_answer) == {} and feedback_json(bob, bobs_answer) == {}


@pytest.mark.parametrize(
    "body",
    [
        {"rating": "meh"},
        {"rating": "UP"},
        {"rating": 1},
        {"comment": "no rating"},
        {"rating": "down", "comment": "x" * 1001},
        {"rating": "down", "comment": ["a list"]},
        {"rating": "up", "device_id": "short"},
    ],
)
def test_bad_feedback_is_refused_with_a_422_and_stores_nothing(
    alice: Api, client: TestClient, db: Db, body: dict[str, Any]
) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot)
    [answer] = add_messages(db, chat, ("Where are you?", "In Oslo."))
    error = assert_error(give(client, chat, answer, body), 422, "validation_error")
    assert error["details"]
    assert feedback_json(alice, answer) == {} and listed(alice, bot) == []


def test_a_comment_of_exactly_the_limit_is_kept_whole(alice: Api, client: TestClient, db: Db) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot)
    [answer] = add_messages(db, chat, ("Where are you?", "In Oslo."))
    assert give(client, chat, answer, {"rating": "down", "comment": "é" * 1000}).status_code == 200
    assert feedback_json(alice, answer)["comment"] == "é" * 1000


def test_a_private_chatbot_refuses_the_keyless_feedback_path_as_it_refuses_streaming(
    alice: Api, client: TestClient, db: Db
) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot)
    [answer] = add_messages(db, chat, ("Where are you?", "In Oslo."))
    alice.ok(alice.post(f"/chatbot/{bot}/update", {"visibility": "private"}))
    assert_not_found(widget_ask(client, chat, "Still there?"))
    assert_not_found(give(client, chat, answer, {"rating": "up"}))
    assert feedback_json(alice, answer) == {}


def test_hybrid_chatbots_take_feedback(alice: Api, client: TestClient, db: Db) -> None:
    bot = public_bot(alice, "hybrid")
    chat = widget_session(client, bot)
    [answer] = add_messages(db, chat, ("Where are you?", "In Oslo."))
    assert give(client, chat, answer, {"rating": "up"}).status_code == 200


def test_feedback_checks_the_widgets_allowed_origins(alice: Api, client: TestClient, db: Db) -> None:
    bot = public_bot(alice)
    alice.ok(alice.post(f"/chatbot/{bot}/widget", {"allowed_origins": ["https://shop.example.com"]}))
    chat = widget_session(client, bot, Origin="https://shop.example.com")
    [answer] = add_messages(db, chat, ("Where are you?", "In Oslo."))
    assert_error(give(client, chat, answer, {"rating": "up"}, Origin="https://evil.example"), 403, "origin_not_allowed")
    assert give(client, chat, answer, {"rating": "up"}, Origin="https://shop.example.com").status_code == 200


def test_feedback_is_rate_limited_per_address_apart_from_messages(alice: Api, client: TestClient, db: Db) -> None:
    bot = public_bot(alice, rate_limit=[2, 60], rate_limit_message="Slow down, please")
    chat = widget_session(client, bot)
    [first, second] = add_messages(db, chat, ("One?", "One."), ("Two?", "Two."))
    assert give(client, chat, first, {"rating": "up"}).status_code == 200
    assert give(client, chat, second, {"rating": "up"}).status_code == 200
    refused = give(client, chat, second, {"rating": "down", "comment": "changed my mind"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert refused.json() == {"error": "Slow down, please", "code": "rate_limited"}
    assert feedback_json(alice, second)["rating"] == "up"  # the refused verdict changed nothing
    # Verdicts have a window of their own: the visitor may still send its messages. They count per client
    # address: another device id is no way round it, another address is another visitor.
    assert widget_ask(client, chat, "Three?").status_code == 200
    assert give(client, chat, second, {"rating": "down"}, device="device-0002").status_code == 429
    with calling_from(client, "2001:db8::7"):
        assert give(client, chat, second, {"rating": "down"}, device="device-0002").status_code == 200


def test_the_owners_list_is_newest_first_filtered_by_rating_and_paged(alice: Api, client: TestClient, db: Db) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot)
    long_answer = "word " * 200
    answers = add_messages(db, chat, ("A?", "a"), ("B?", "b"), ("C?", long_answer), ("D?", "d"))
    for answer, rating in zip(answers, ["up", "down", "down", "up"], strict=True):
        assert give(client, chat, answer, {"rating": rating}).status_code == 200
    # Verdicts given within one second: newest first means the last given first (the clock's finer part decides).
    assert [e["query"] for e in listed(alice, bot)] == ["D?", "C?", "B?", "A?"]
    assert [e["query"] for e in listed(alice, bot, rating="down")] == ["C?", "B?"]
    assert [e["query"] for e in listed(alice, bot, rating="up")] == ["D?", "A?"]
    assert [e["query"] for e in listed(alice, bot, limit=2)] == ["D?", "C?"]
    assert [e["query"] for e in listed(alice, bot, limit=2, offset=2)] == ["B?", "A?"]
    assert listed(alice, bot, offset=4) == []
    excerpt = listed(alice, bot, rating="down")[0]["response_excerpt"]
    assert len(excerpt) == 300 and excerpt.endswith("…") and long_answer.startswith(excerpt[:-1])
    for params in ({"rating": "meh"}, {"limit": 0}, {"limit": 201}, {"offset": -1}):
        assert_error(alice.get(f"/chatbot/{bot}/feedback", params=params), 422, "validation_error")


def test_another_accounts_chatbot_feedback_is_404(alice: Api, bob: Api, client: TestClient, db: Db) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot)
    [answer] = add_messages(db, chat, ("Where are you?", "In Oslo."))
    assert give(client, chat, answer, {"rating": "up"}).status_code == 200
    assert_not_found(bob.get(f"/chatbot/{bot}/feedback"))
    assert_not_found(alice.get(f"/chatbot/{MISSING}/feedback"))
    assert client.get(f"/api/v1/chatbot/{bot}/feedback").status_code == 401


def test_feedback_goes_with_its_message(alice: Api, client: TestClient, db: Db) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot)
    [kept, deleted] = add_messages(db, chat, ("Kept?", "Yes."), ("Deleted?", "Yes."))
    for answer in (kept, deleted):
        assert give(client, chat, answer, {"rating": "down"}).status_code == 200
    alice.ok(alice.post(f"/message/{deleted}/delete"))
    assert [e["message_uuid"] for e in listed(alice, bot)] == [kept]
    alice.ok(alice.post(f"/session/{chat}/delete"))
    assert listed(alice, bot) == []


def test_both_paths_are_documented(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    given = paths["/api/v1/widget/session/{session_uuid}/message/{message_uuid}/feedback"]["post"]
    assert {"404", "422", "429"} <= set(given["responses"])
    listing = paths["/api/v1/chatbot/{uuid}/feedback"]["get"]
    assert {"rating", "limit", "offset"} <= {parameter["name"] for parameter in listing["parameters"]}
    assert "404" in listing["responses"]
