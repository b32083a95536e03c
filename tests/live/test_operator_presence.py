"""Operators as people (issue 40 item 4): a person's live-chat messages carry their name (the transcript, the
widget, the events), and a person says whether they are there; when everyone who takes conversations is away, a
visitor who asks for a person is offered the contact form instead of waiting for nobody. Real app, both databases."""

from __future__ import annotations

import json
from typing import Any

from starlette.testclient import TestClient

from botyard.chatbots.handoff.service import DEFAULT_AFTER_HOURS_MESSAGE
from botyard.models import Role
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.handoff import ASKING, answer_text, desk, operator_events
from tests.support.people import Person, person
from tests.support.widget import widget_ask, widget_session


def widget_events(client: TestClient, chat: str, last: str) -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []
    kind = ""
    with client.stream("GET", f"/api/v1/widget/session/{chat}/events", params={"after": 0}) as body:
        for line in body.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind != "ping":
                seen.append((kind, json.loads(line[6:])))
                if kind == last:
                    break
    return seen


def test_a_persons_live_chat_messages_carry_their_name_and_a_keys_do_not(
    alice: Api, client: TestClient, db: Db
) -> None:
    bot = desk(alice)
    chat = widget_session(client, bot)
    widget_ask(client, chat, ASKING)
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    anna.ok(anna.post(f"/session/{chat}/live-chat/start"))
    reply = anna.ok(anna.post(f"/session/{chat}/live-chat/message", {"text": "Hello, Anna here."}))
    assert json.loads(reply["meta_json"]) == {"kind": "operator", "operator_name": "anna"}
    alice.ok(alice.post(f"/session/{chat}/live-chat/message", {"text": "And the team's key."}))

    rows = [json.loads(row["meta_json"]) for row in alice.ok(alice.get(f"/session/{chat}/messages"))]
    assert [row for row in rows if row.get("kind") in ("live_chat_start", "operator")] == [
        {"kind": "live_chat_start", "operator_name": "anna"},
        {"kind": "operator", "operator_name": "anna"},
        {"kind": "operator"},
    ]
    shown = client.get(f"/api/v1/widget/session/{chat}/messages").json()
    assert [(entry["role"], entry.get("operator_name")) for entry in shown[-3:]] == [
        ("announcement", "anna"),
        ("operator", "anna"),
        ("operator", None),
    ]
    events = operator_events(alice, bot, "operator_message")
    assert [(event["type"], event.get("operator_name")) for event in events[-3:]] == [
        ("live_chat_started", "anna"),
        ("conversation_assigned", None),  # taking it over gave it to her
        ("operator_message", "anna"),
    ]
    assert events[-2]["assignee_uuid"] == anna.me["user"]["uuid"]
    heard = widget_events(client, chat, "operator_message")
    assert [(kind, data.get("operator_name")) for kind, data in heard] == [
        ("live_chat_started", "anna"),
        ("operator_message", "anna"),
    ]


def away(someone: Person, value: bool) -> dict[str, Any]:
    me: dict[str, Any] = someone.ok(someone.post("/auth/availability", {"away": value}))
    return me


def test_when_everyone_who_takes_conversations_is_away_a_visitor_is_offered_the_form(
    alice: Api, client: TestClient, db: Db
) -> None:
    bot = desk(alice)
    owner = person(client, db, "alice@example.com", "olga@example.com", Role.OWNER)
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    assert away(anna, True)["user"]["away"] is True
    first = widget_session(client, bot)
    assert "A person will join" in answer_text(widget_ask(client, first, ASKING))  # the owner is there

    assert away(owner, True)["user"]["away"] is True
    members = {member["email"]: member["away"] for member in owner.ok(owner.get("/account/members"))}
    assert members == {"olga@example.com": True, "anna@example.com": True}
    second = widget_session(client, bot)
    assert DEFAULT_AFTER_HOURS_MESSAGE in answer_text(widget_ask(client, second, ASKING))
    assert client.get(f"/api/v1/widget/session/{second}/contact").json() == {"offered": True, "sent": False}
    waiting = [session["uuid"] for session in alice.ok(alice.get(f"/chatbot/{bot}/inbox"))["sessions"]]
    assert waiting == [first]  # the second waits for nobody

    assert away(anna, False)["user"]["away"] is False
    third = widget_session(client, bot)
    assert "A person will join" in answer_text(widget_ask(client, third, ASKING))


def test_only_people_who_take_conversations_say_they_are_away(alice: Api, client: TestClient, db: Db) -> None:
    assert_error(alice.post("/auth/availability", {"away": True}), 409, "not_a_person")
    viewer = person(client, db, "alice@example.com", "vic@example.com", Role.VIEWER)
    assert_error(viewer.post("/auth/availability", {"away": True}), 403, "forbidden_role")
    # A viewer is not someone a visitor waits for: an account whose only people cannot take conversations still
    # promises a person (its API key's program answers the inbox).
    bot = desk(alice)
    chat = widget_session(client, bot)
    assert "A person will join" in answer_text(widget_ask(client, chat, ASKING))
