"""A conversation as the team's work, over HTTP: its status (a snooze needs a future time and passes by itself, the
customer writing opens it again, resolving ends a live chat), its assignee (people who take conversations only,
"me", nobody; taking over assigns it), each told on the operators' event stream; other accounts get 404. Real app,
both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update
from starlette.testclient import TestClient

from botyard.models import ChatSession, Role
from tests.support.agents import helpdesk
from tests.support.api import Api, assert_error
from tests.support.chat import ask, messages, new_session
from tests.support.database import Db
from tests.support.handoff import desk, operator_events
from tests.support.people import person
from tests.support.widget import widget_ask, widget_session

ASKING = "I want to talk to a real person please"


def listed(api: Any, bot: str, **params: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = api.ok(api.get(f"/chatbot/{bot}/inbox", params=params))["sessions"]
    return found


def entry(api: Any, bot: str, chat: str) -> dict[str, Any]:
    (found,) = [item for item in listed(api, bot, status="all", view="all") if item["uuid"] == chat]
    return found


def later(**delta: float) -> str:
    return (datetime.now(UTC) + timedelta(**delta)).isoformat()


def test_a_status_is_set_and_the_customer_writing_opens_it_again(alice: Api) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, ASKING)
    pending = alice.ok(alice.post(f"/session/{chat}/status", {"status": "pending"}))
    assert pending["status"] == "pending" and pending["snoozed_until"] is None and pending["resolved_at"] is None
    assert listed(alice, bot) == []  # the default is the open ones
    assert [item["uuid"] for item in listed(alice, bot, status="pending")] == [chat]
    ask(alice, chat, "Any news?")  # the customer writes: open again
    assert entry(alice, bot, chat)["status"] == "open"

    resolved = alice.ok(alice.post(f"/session/{chat}/status", {"status": "resolved"}))
    assert resolved["status"] == "resolved" and resolved["resolved_at"] is not None
    assert resolved["human_requested"] is False  # resolving answers the request for a person
    item = entry(alice, bot, chat)
    assert item["status"] == "resolved" and item["resolved_at"] == resolved["resolved_at"]
    assert [i["uuid"] for i in listed(alice, bot, status="resolved")] == [chat]
    ask(alice, chat, "One more question")
    item = entry(alice, bot, chat)
    assert item["status"] == "open" and item["resolved_at"] is None

    events = operator_events(alice, bot, "conversation_status", times=2)
    statuses = [e for e in events if e["type"] == "conversation_status"]
    assert [(e["status"], e["snoozed_until"], e["by_uuid"]) for e in statuses] == [
        ("pending", None, None),  # an API key is nobody
        ("resolved", None, None),
    ]
    assert "human_request_dismissed" in [e["type"] for e in events]


def test_a_snooze_needs_a_future_time_and_passes_by_itself(alice: Api, db: Db) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, ASKING)
    for body in (
        {"status": "snoozed"},
        {"status": "snoozed", "snoozed_until": later(minutes=-1)},
        {"status": "open", "snoozed_until": later(hours=1)},
    ):
        assert_error(alice.post(f"/session/{chat}/status", body), 422, "snooze_time_invalid")
    assert_error(alice.post(f"/session/{chat}/status", {"status": "closed"}), 422, "validation_error")
    naive = (datetime.now(UTC) + timedelta(hours=2)).replace(tzinfo=None).isoformat()  # a time without a zone: UTC
    snoozed = alice.ok(alice.post(f"/session/{chat}/status", {"status": "snoozed", "snoozed_until": naive}))
    assert snoozed["status"] == "snoozed" and snoozed["snoozed_until"] == naive[:19] + "Z"
    assert listed(alice, bot) == []
    assert [item["uuid"] for item in listed(alice, bot, status="snoozed")] == [chat]

    async def passed(session: Any) -> None:  # as if two hours went by
        past = datetime.now(UTC) - timedelta(seconds=5)
        await session.execute(update(ChatSession).where(ChatSession.uuid == chat).values(snoozed_until=past))

    db.run(passed)
    (item,) = listed(alice, bot)  # open again, read as of now: no job woke it
    assert item["uuid"] == chat and item["status"] == "open"
    assert listed(alice, bot, status="snoozed") == []


def test_resolving_ends_a_live_chat_and_handing_back_leaves_it_open(alice: Api) -> None:
    bot = helpdesk(alice)
    resolved, handed = new_session(alice, bot), new_session(alice, bot)
    for chat in (resolved, handed):
        ask(alice, chat, ASKING)
        alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    work = alice.ok(alice.post(f"/session/{resolved}/status", {"status": "resolved"}))
    assert work["live_chat"] is False and work["status"] == "resolved"
    assert [m["response"] for m in messages(alice, resolved)][-1].startswith("The person has left the chat")
    alice.ok(alice.post(f"/session/{handed}/live-chat/end"))
    assert entry(alice, bot, handed)["status"] == "open"
    found = operator_events(alice, bot, "conversation_status")
    assert [e["type"] for e in found if e["session_uuid"] == resolved][-2:] == [
        "live_chat_ended",
        "conversation_status",
    ]
    assert ask(alice, resolved, "When will my parcel arrive?").text  # the bot answers again


def test_a_conversation_is_assigned_to_people_who_take_conversations(
    alice: Api, bob: Api, client: TestClient, db: Db
) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, ASKING)
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    vera = person(client, db, "alice@example.com", "vera@example.com", Role.VIEWER)
    ben = person(client, db, "bob@example.com", "ben@example.com", Role.OPERATOR)
    anna_uuid = anna.me["user"]["uuid"]

    work = alice.ok(alice.post(f"/session/{chat}/assign", {"user_uuid": anna_uuid}))
    assert work["assignee"] == {"uuid": anna_uuid, "name": "anna"}
    item = entry(alice, bot, chat)
    assert item["assignee"] == {"uuid": anna_uuid, "name": "anna"}
    assert item["waiting_since"] is None  # somebody has it: it no longer waits
    assert alice.ok(alice.get("/inbox/waiting"))["sessions"] == []
    for uuid in (vera.me["user"]["uuid"], ben.me["user"]["uuid"], "0" * 32):  # a viewer, another account's, nobody
        assert_error(alice.post(f"/session/{chat}/assign", {"user_uuid": uuid}), 404, "not_found")
    assert_error(alice.post(f"/session/{chat}/assign", {"me": True}), 409, "not_a_person")
    for body in ({}, {"me": True, "user_uuid": anna_uuid}):
        assert_error(alice.post(f"/session/{chat}/assign", body), 422, "validation_error")
    assert_error(vera.post(f"/session/{chat}/assign", {"me": True}), 403, "forbidden_role")

    assert alice.ok(alice.post(f"/session/{chat}/assign", {"user_uuid": None}))["assignee"] is None
    assert entry(alice, bot, chat)["waiting_since"] is not None  # nobody has it: it waits again
    assert anna.ok(anna.post(f"/session/{chat}/assign", {"me": True}))["assignee"]["uuid"] == anna_uuid
    events = operator_events(alice, bot, "conversation_assigned", times=3)
    found = [e for e in events if e["type"] == "conversation_assigned"]
    assert [(e["assignee_uuid"], e["by_uuid"]) for e in found] == [
        (anna_uuid, None),
        (None, None),
        (anna_uuid, anna_uuid),
    ]
    assert found[0]["assignee_name"] == "anna"

    for uuid in (chat, "0" * 32):  # another account's session: 404 like a missing one
        assert_error(bob.post(f"/session/{uuid}/assign", {"user_uuid": None}), 404, "not_found")
        assert_error(bob.post(f"/session/{uuid}/status", {"status": "resolved"}), 404, "not_found")
    assert entry(alice, bot, chat)["status"] == "open"


def test_taking_over_assigns_it_to_the_person_when_nobody_has_it(alice: Api, client: TestClient, db: Db) -> None:
    bot = helpdesk(alice)
    first, second = new_session(alice, bot), new_session(alice, bot)
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    sam = person(client, db, "alice@example.com", "sam@example.com", Role.OPERATOR)
    for chat in (first, second):
        ask(alice, chat, ASKING)
    alice.ok(alice.post(f"/session/{second}/assign", {"user_uuid": sam.me["user"]["uuid"]}))
    anna.ok(anna.post(f"/session/{first}/live-chat/start"))
    anna.ok(anna.post(f"/session/{second}/live-chat/start"))
    assert entry(alice, bot, first)["assignee"]["uuid"] == anna.me["user"]["uuid"]
    assert entry(alice, bot, second)["assignee"]["uuid"] == sam.me["user"]["uuid"]  # sam had it: it stays his
    alice.ok(alice.post(f"/session/{first}/live-chat/end"))
    assert entry(alice, bot, first)["assignee"]["uuid"] == anna.me["user"]["uuid"]  # handed back: still hers


def test_a_message_left_through_the_contact_form_opens_it_again(alice: Api, client: TestClient) -> None:
    bot = desk(alice, enabled=True, week={})  # always after hours: the form is offered
    chat = widget_session(client, bot)
    widget_ask(client, chat, ASKING)
    alice.ok(alice.post(f"/session/{chat}/status", {"status": "pending"}))
    body = {"email": "ann@example.org", "message": "Please call me back about order 1234."}
    assert client.post(f"/api/v1/widget/session/{chat}/contact", json=body).status_code == 201
    item = entry(alice, bot, chat)
    assert item["status"] == "open" and item["waiting_since"]  # the customer wrote: the team's again


def test_everyone_of_the_team_reads_who_a_conversation_may_be_assigned_to(
    alice: Api, bob: Api, client: TestClient, db: Db
) -> None:
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    person(client, db, "alice@example.com", "vera@example.com", Role.VIEWER)
    person(client, db, "alice@example.com", "carl@example.com", Role.ADMIN)
    person(client, db, "bob@example.com", "ben@example.com", Role.OPERATOR)
    # An operator may not read the members' page, yet must be able to give a conversation to a colleague.
    assert_error(anna.get("/account/members"), 403, "forbidden_role")
    people = anna.ok(anna.get("/inbox/people"))["people"]
    # By name; neither the viewer, who takes no conversations, nor the other account's people.
    assert [(one["email"], one["role"]) for one in people] == [
        ("anna@example.com", "operator"),
        ("carl@example.com", "admin"),
    ]
    assert all(set(one) == {"uuid", "name", "email", "role", "away"} for one in people)
    carl = next(one for one in people if one["role"] == "admin")
    chat = new_session(alice, helpdesk(alice))
    assert (
        anna.ok(anna.post(f"/session/{chat}/assign", {"user_uuid": carl["uuid"]}))["assignee"]["uuid"] == carl["uuid"]
    )
    assert [one["email"] for one in bob.ok(bob.get("/inbox/people"))["people"]] == ["ben@example.com"]
