"""The operators' inbox over HTTP: what waits (with the asking message and since when), unread counts and marking
read, dismissing a request without taking over, each change told on the event stream; other accounts get 404.
Real app, both databases."""

from __future__ import annotations

from typing import Any

from botyard.models import SessionMeta
from tests.support.agents import helpdesk
from tests.support.api import Api, assert_error
from tests.support.chat import ask, new_session
from tests.support.handoff import operator_events

ASKING = "I want to talk to a real person please"


def inbox(api: Api, bot: str) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get(f"/chatbot/{bot}/inbox"))
    return found


def entry(api: Api, bot: str, chat: str) -> dict[str, Any]:
    (found,) = [item for item in inbox(api, bot)["sessions"] if item["uuid"] == chat]
    return found


def test_a_waiting_conversation_shows_what_it_asked_and_since_when(alice: Api) -> None:
    bot = helpdesk(alice)
    chat, quiet = new_session(alice, bot), new_session(alice, bot)
    ask(alice, chat, "When will my parcel arrive?")
    ask(alice, quiet, "When will my parcel arrive?")
    counts = {"mine": 0, "unassigned": 0, "waiting": 0, "all": 2}  # `all`: the bot's own conversations too
    assert inbox(alice, bot) == {"unread": 0, "sessions": [], "counts": counts}  # nobody asked for a person yet
    ask(alice, chat, ASKING)
    listed = inbox(alice, bot)
    (item,) = listed["sessions"]
    assert item["uuid"] == chat and item["human_requested"] and not item["live_chat"]
    assert item["preview"] == ASKING  # the message that asked, not the first question
    meta = alice.ok(alice.get(f"/session/{chat}"))["meta"]
    assert item["waiting_since"] == meta["human_requested_at"]
    assert item["unread"] == 2 and listed["unread"] == 2 and item["seen_at"] is None
    assert set(item) == {
        "uuid", "created_at", "modified_at", "human_requested", "live_chat", "waiting_since", "preview", "unread",
        "seen_at", "tags", "channel", "channel_type", "channel_window_closes_at", "status", "snoozed_until",
        "resolved_at", "assignee", "contact", "last_message_at", "unanswered_since", "visitor_page",
    }  # fmt: skip
    assert item["visitor_page"] == ""  # an API conversation: no page
    assert item["status"] == "open" and item["assignee"] is None and item["contact"] is None
    assert item["channel"] is None  # a widget or API conversation: no channel
    assert item["channel_type"] is None and item["channel_window_closes_at"] is None


def test_the_longest_waiting_comes_first_and_live_ones_after(alice: Api) -> None:
    bot = helpdesk(alice)
    first, second, live = (new_session(alice, bot) for _ in range(3))
    for chat in (first, second, live):
        ask(alice, chat, ASKING)
    alice.ok(alice.post(f"/session/{live}/live-chat/start"))
    ask(alice, first, "Still there?")  # activity does not move it: it has waited longest
    listed = inbox(alice, bot)["sessions"]
    assert [item["uuid"] for item in listed] == [first, second, live]
    assert listed[2]["live_chat"] and listed[2]["waiting_since"] is None


def test_unread_counts_the_visitors_messages_since_an_operator_looked(alice: Api) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, ASKING)
    assert entry(alice, bot, chat)["unread"] == 1
    seen = alice.ok(alice.post(f"/session/{chat}/seen"))
    assert seen["session_uuid"] == chat
    assert entry(alice, bot, chat) | {"unread": 0, "seen_at": seen["seen_at"]} == entry(alice, bot, chat)
    ask(alice, chat, "It is about my order 1234")
    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    alice.ok(alice.post(f"/session/{chat}/live-chat/message", {"text": "Hi, Sam here"}))  # an operator's: not unread
    ask(alice, chat, "Thanks!")
    assert entry(alice, bot, chat)["unread"] == 2
    assert inbox(alice, bot)["unread"] == 2


def test_dismiss_clears_the_request_without_taking_over(alice: Api) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, ASKING)
    dismissed = alice.ok(alice.post(f"/session/{chat}/human-request/dismiss"))
    assert dismissed["uuid"] == chat
    assert dismissed["meta"]["human_requested"] is False and "live_chat" not in dismissed["meta"]
    assert dismissed["meta"]["human_requested_at"]  # it was handed off once: the conversation filters keep it
    assert inbox(alice, bot)["sessions"] == []
    assert alice.ok(alice.get(f"/chatbot/{bot}/sessions", params={"human_requested": 1})) == []
    handed = alice.ok(alice.get(f"/chatbot/{bot}/conversations", params={"handed_off": 1}))
    assert [item["uuid"] for item in handed] == [chat]
    assert ask(alice, chat, "When will my parcel arrive?").text  # the AI still answers
    assert_error(alice.post(f"/session/{chat}/human-request/dismiss"), 409, "human_request_inactive")

    ask(alice, chat, ASKING)  # asking again puts it back
    assert [item["uuid"] for item in inbox(alice, bot)["sessions"]] == [chat]
    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    assert_error(alice.post(f"/session/{chat}/human-request/dismiss"), 409, "live_chat_active")


def test_every_inbox_change_is_an_event(alice: Api) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, ASKING)
    ask(alice, chat, ASKING)  # asking again while flagged is a visitor's message operators hear of
    alice.ok(alice.post(f"/session/{chat}/seen"))
    alice.ok(alice.post(f"/session/{chat}/human-request/dismiss"))
    found = operator_events(alice, bot, "human_request_dismissed")
    assert [(e["type"], e["session_uuid"]) for e in found] == [
        ("human_requested", chat), ("user_message", chat), ("conversation_seen", chat),
        ("human_request_dismissed", chat),
    ]  # fmt: skip
    asked = SessionMeta(alice.ok(alice.get(f"/session/{chat}"))["meta"]).human_requested_message
    assert found[0]["message_uuid"] == asked and found[1]["query"] == ASKING


def test_other_accounts_and_unknown_uuids_get_404(alice: Api, bob: Api) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, ASKING)
    for api, uuid in ((bob, bot), (alice, "0" * 32)):
        assert_error(api.get(f"/chatbot/{uuid}/inbox"), 404, "not_found")
    for api, uuid in ((bob, chat), (alice, "0" * 32)):
        assert_error(api.post(f"/session/{uuid}/human-request/dismiss"), 404, "not_found")
        assert_error(api.post(f"/session/{uuid}/seen"), 404, "not_found")
    assert entry(alice, bot, chat)["human_requested"]  # bob changed nothing
    assert_error(alice.client.get(f"/api/v1/chatbot/{bot}/inbox"), 401, "unauthorized")
