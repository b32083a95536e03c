"""Human hand-off over HTTP: a session asks for a person, an operator takes over, replies, hands back; the user's
messages meanwhile reach nobody but the operator; monitored phrases flag a session; the chatbot's event stream
tells operators all of it. Real app, both databases."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import ChatSession, MessageKind, MessageMeta, SessionMeta
from tests.support.agents import helpdesk
from tests.support.api import Api, assert_error
from tests.support.chat import ask, messages, new_session
from tests.support.database import Db
from tests.support.jobs import process


def kinds(api: Api, chat: str) -> list[tuple[str, str, str]]:
    """(kind, query, response) of each stored message, oldest first."""
    found = []
    for message in messages(api, chat):
        meta: dict[str, Any] = json.loads(message["meta_json"])
        found.append((str(meta.get("kind", meta.get("agent_type", ""))), message["query"], message["response"]))
    return found


def flagged(api: Api, bot: str) -> list[str]:
    return [s["uuid"] for s in api.ok(api.get(f"/chatbot/{bot}/sessions", params={"human_requested": 1}))]


def test_the_live_chat_cycle(alice: Api) -> None:
    bot = helpdesk(alice)
    chat, other = new_session(alice, bot), new_session(alice, bot)
    assert ask(alice, chat, "I want to talk to a real person please").status_code == 200
    assert flagged(alice, bot) == [chat]
    others = alice.ok(alice.get(f"/chatbot/{bot}/sessions", params={"human_requested": 0}))
    assert [s["uuid"] for s in others] == [other]

    started = alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    assert started["meta"]["live_chat"] is True
    waiting = ask(alice, chat, "Hello? Is anyone there?")
    assert waiting.status_code == 200 and waiting.text == ""  # no AI answer while an operator has the session
    reply = alice.ok(alice.post(f"/session/{chat}/live-chat/message", {"text": "Hi, this is Sam. How can I help?"}))
    assert reply["query"] == "" and json.loads(reply["meta_json"]) == {"kind": "operator"}
    ended = alice.ok(alice.post(f"/session/{chat}/live-chat/end"))
    assert ended["meta"]["live_chat"] is False and ended["meta"]["human_requested"] is False
    assert flagged(alice, bot) == []
    back = ask(alice, chat, "When will my parcel arrive?")
    assert back.status_code == 200

    assert [kind for kind, _, _ in kinds(alice, chat)] == [
        "human-escalation", "live_chat_start", "live_chat_user", "operator", "live_chat_end", "user-facing",
    ]  # fmt: skip
    rows = kinds(alice, chat)
    assert rows[1][2] == "You are now chatting with a person." and rows[2][1:] == ("Hello? Is anyone there?", "")
    assert rows[4][2].startswith("The person has left the chat")
    text = alice.client.get(f"/api/v1/session/{chat}/messages/plain-text", headers=alice.auth).json()
    assert "\nOperator: Hi, this is Sam. How can I help?\n" in text
    assert "User: Hello? Is anyone there?\nOperator:" in text


def test_live_chat_errors_and_other_accounts(alice: Api, bob: Api) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    assert_error(alice.post(f"/session/{chat}/live-chat/message", {"text": "hi"}), 409, "live_chat_inactive")
    assert_error(alice.post(f"/session/{chat}/live-chat/end"), 409, "live_chat_inactive")
    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    assert_error(alice.post(f"/session/{chat}/live-chat/start"), 409, "live_chat_active")
    assert_error(alice.post(f"/session/{chat}/live-chat/message", {"text": ""}), 422, "validation_error")
    for path in ("start", "end"):
        assert_error(bob.post(f"/session/{chat}/live-chat/{path}"), 404, "not_found")
    assert_error(bob.post(f"/session/{chat}/live-chat/message", {"text": "hi"}), 404, "not_found")
    assert_error(bob.get(f"/chatbot/{bot}/events"), 404, "not_found")


def test_a_monitored_phrase_in_an_ai_reply_flags_the_session(alice: Api) -> None:
    settings = {"human_escalation_settings": {"monitored_messages": ["damaged parcel"]}}
    bot = helpdesk(alice, **settings)
    question, answer = "What if my parcel arrives broken?", "Send us a photo of the damaged parcel within 7 days."
    alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": question, "answer": answer}))
    process(alice.client)
    chat = new_session(alice, bot)
    assert "damaged parcel" in ask(alice, chat, "My parcel arrived broken, what now?").text
    assert flagged(alice, bot) == [chat]


def test_the_event_stream_tells_operators_everything(alice: Api) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, "I want to talk to a real person please")
    ask(alice, chat, "It is about my order 1234")
    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    ask(alice, chat, "Thanks for taking this")
    alice.ok(alice.post(f"/session/{chat}/live-chat/message", {"text": "You're welcome"}))
    alice.ok(alice.post(f"/session/{chat}/live-chat/end"))

    events = []
    with alice.client.stream("GET", f"/api/v1/chatbot/{bot}/events", params={"after": 0}, headers=alice.auth) as body:
        assert body.status_code == 200 and body.headers["content-type"].startswith("text/event-stream")
        for line in body.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
                if events[-1]["type"] == "live_chat_ended":
                    break
    assert [(e["type"], e["session_uuid"]) for e in events] == [
        ("human_requested", chat), ("user_message", chat), ("live_chat_started", chat), ("user_message", chat),
        ("operator_message", chat), ("live_chat_ended", chat),
    ]  # fmt: skip
    assert events[1]["query"] == "It is about my order 1234" and events[3]["query"] == "Thanks for taking this"
    assert [e["id"] for e in events] == sorted(e["id"] for e in events)


def test_the_flag_columns_follow_the_meta(alice: Api, db: Db) -> None:
    """The session's `human_requested` and `live_chat` columns (what the list filters on) say what its meta says,
    at every step of the cycle, whoever wrote the meta."""

    def columns(chat: str) -> tuple[bool, bool, dict[str, Any]]:
        async def read(session: AsyncSession) -> tuple[bool, bool, dict[str, Any]]:
            row = await session.get(ChatSession, chat)
            assert row is not None
            return row.human_requested, row.live_chat, dict(row.meta)

        return db.run(read)

    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    assert columns(chat) == (False, False, {"variables": {}, "human_requested": False, "tags": []})
    assert ask(alice, chat, "I want to talk to a real person please").status_code == 200
    requested, live, meta = columns(chat)
    assert (requested, live) == (True, False) and meta["human_requested"] is True and "live_chat" not in meta
    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    assert columns(chat)[:2] == (True, True)
    alice.ok(alice.post(f"/session/{chat}/live-chat/end"))
    requested, live, meta = columns(chat)
    assert (requested, live) == (False, False) and "human_requested_at" in meta


def test_the_session_views_keep_the_stored_keys() -> None:
    """A view adds no key of its own: the wire shows the stored keys, and only those a change sets are added."""
    new = SessionMeta.new(None)
    assert new.dump() == {"variables": {}, "human_requested": False, "tags": []}
    assert not new.live_chat and new.human_requested_at is None and new.initial_variables is None
    flagged_meta = new.flagged("2026-01-01T00:00:00Z")
    assert flagged_meta.dump() == {**new.dump(), "human_requested": True, "human_requested_at": "2026-01-01T00:00:00Z"}
    ended = flagged_meta.live_started().live_ended()
    assert ended.dump()["live_chat"] is False and not ended.human_requested
    assert SessionMeta({"tags": ["a"], "odd": 1}).with_tags(["a", "b", "b"]).dump() == {"tags": ["a", "b"], "odd": 1}
    row = MessageMeta.transcript_row(MessageKind.OPERATOR)
    assert row.dump() == {"kind": "operator"} and row.kind is MessageKind.OPERATOR
    assert MessageMeta({"kind": "something-new"}).kind is None


def test_the_operators_stream_refuses_an_id_no_database_holds(alice: Api) -> None:
    bot = helpdesk(alice)
    assert_error(alice.get(f"/chatbot/{bot}/events", params={"after": 2**63}), 422, "validation_error")
    path = f"/api/v1/chatbot/{bot}/events"
    with alice.client.stream("GET", path, headers=alice.auth | {"Last-Event-ID": "²".encode("latin-1")}) as body:
        assert body.status_code == 200 and next(body.iter_lines()) == ": events"
