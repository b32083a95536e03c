"""Private notes over HTTP: the team writes and reads them, their author or an admin deletes them; a note never
reaches the customer (not in the hosted messages, the widget's messages or its event stream, no channel relay job,
no webhook), while operators' streams hear `note_added`. Other accounts get 404. Real app, both databases."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select, update
from starlette.testclient import TestClient

from botyard.jobs.kinds import JobKind
from botyard.live.service import RELAYED, WEBHOOK_EVENTS, WIDGET_EVENTS
from botyard.models import Channel, ChatbotEventKind, ChatSession, Job, Role
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.handoff import ASKING, desk, operator_events
from tests.support.people import person
from tests.support.widget import widget_ask, widget_session

SECRET = "The customer was rude last time: stay formal"


def widget_events(client: TestClient, chat: str, last: str) -> list[tuple[str, dict[str, Any]]]:
    """The widget's session events from the start, up to the first of kind `last`."""
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


def relay_jobs(db: Db, chat: str) -> list[dict[str, Any]]:
    async def read(session: Any) -> list[dict[str, Any]]:
        jobs = (await session.execute(select(Job).where(Job.kind == JobKind.CHANNEL_RELAY))).scalars().all()
        return [job.payload for job in jobs if job.payload.get("session_uuid") == chat]

    return db.run(read)


def on_a_channel(db: Db, bot: str, chat: str) -> None:
    """The conversation is held on a (generic) channel, as if its customer wrote there."""

    async def move(session: Any) -> None:
        channel = Channel(chatbot_uuid=bot, type="generic", name="Helpdesk")
        session.add(channel)
        await session.flush()
        await session.execute(update(ChatSession).where(ChatSession.uuid == chat).values(channel_uuid=channel.uuid))

    db.run(move)


def test_the_note_event_is_never_one_the_customer_hears() -> None:
    assert ChatbotEventKind.NOTE_ADDED not in (*WIDGET_EVENTS, *RELAYED, *WEBHOOK_EVENTS)
    assert ChatbotEventKind.NOTE_DELETED not in (*WIDGET_EVENTS, *RELAYED, *WEBHOOK_EVENTS)


def test_a_note_stays_with_the_team(alice: Api, client: TestClient, db: Db) -> None:
    bot = desk(alice)
    chat = widget_session(client, bot)
    widget_ask(client, chat, ASKING)
    on_a_channel(db, bot, chat)
    note = alice.ok(alice.post(f"/session/{chat}/note", {"text": f"  {SECRET}  "}))
    assert note["text"] == SECRET and note["session_uuid"] == chat and note["author_uuid"] is None
    assert alice.ok(alice.get(f"/session/{chat}/notes")) == [note]

    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    alice.ok(alice.post(f"/session/{chat}/live-chat/message", {"text": "Hello, how can I help?"}))
    everywhere = [
        alice.get(f"/session/{chat}/messages").text,
        alice.client.get(f"/api/v1/session/{chat}/messages/plain-text", headers=alice.auth).text,
        client.get(f"/api/v1/widget/session/{chat}/messages").text,
        json.dumps(widget_events(client, chat, "operator_message")),
        json.dumps(relay_jobs(db, chat)),
    ]
    assert not [text for text in everywhere if SECRET in text]
    assert len(relay_jobs(db, chat)) == 2  # the start and the operator's reply went to the channel; the note did not
    heard = [kind for kind, _ in widget_events(client, chat, "operator_message")]
    assert "note_added" not in heard and "operator_message" in heard

    events = operator_events(alice, bot, "note_added")
    assert events[-1]["note_uuid"] == note["uuid"] and events[-1]["text"] == SECRET


def test_a_note_is_deleted_by_its_author_or_an_admin(alice: Api, bob: Api, client: TestClient, db: Db) -> None:
    bot = desk(alice)
    chat = widget_session(client, bot)
    widget_ask(client, chat, ASKING)
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    sam = person(client, db, "alice@example.com", "sam@example.com", Role.OPERATOR)
    vera = person(client, db, "alice@example.com", "vera@example.com", Role.VIEWER)
    first = anna.ok(anna.post(f"/session/{chat}/note", {"text": "Called him back"}))
    second = anna.ok(anna.post(f"/session/{chat}/note", {"text": "Refund approved"}))
    assert first["author_uuid"] == anna.me["user"]["uuid"] and first["author_name"] == "anna"
    assert [n["uuid"] for n in sam.ok(sam.get(f"/session/{chat}/notes"))] == [first["uuid"], second["uuid"]]
    assert_error(vera.post(f"/session/{chat}/note", {"text": "a viewer's"}), 403, "forbidden_role")
    assert_error(anna.post(f"/session/{chat}/note", {"text": "   "}), 422, "validation_error")

    assert_error(sam.post(f"/note/{first['uuid']}/delete"), 403, "forbidden_role")  # another operator's note
    assert anna.ok(anna.post(f"/note/{first['uuid']}/delete")) == {"uuid": first["uuid"], "deleted": True}
    assert_error(bob.post(f"/note/{second['uuid']}/delete"), 404, "not_found")  # another account's
    assert alice.ok(alice.post(f"/note/{second['uuid']}/delete"))["deleted"]  # the key acts as an admin
    assert alice.ok(alice.get(f"/session/{chat}/notes")) == []
    assert_error(alice.post(f"/note/{second['uuid']}/delete"), 404, "not_found")
    for api, uuid in ((bob, chat), (alice, "0" * 32)):
        assert_error(api.get(f"/session/{uuid}/notes"), 404, "not_found")
        assert_error(api.post(f"/session/{uuid}/note", {"text": "x"}), 404, "not_found")
    deleted = operator_events(alice, bot, "note_deleted", times=2)
    assert [e["note_uuid"] for e in deleted if e["type"] == "note_deleted"] == [first["uuid"], second["uuid"]]
