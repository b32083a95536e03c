"""The team inbox's list over HTTP: what it holds (conversations handed to people; the bot's own with `view=all`),
its tabs and their counts, the status, channel and word filters, the order by who waits longest, and unread counts
per person (one operator reading leaves the other's unread). Real app, both databases."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from starlette.testclient import TestClient

from botyard.models import Channel, ChatSession, Role
from tests.support.agents import helpdesk
from tests.support.api import Api, assert_error
from tests.support.chat import ask, new_session
from tests.support.database import Db
from tests.support.people import person

ASKING = "I want to talk to a real person please"


def inbox(api: Any, bot: str, **params: str) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get(f"/chatbot/{bot}/inbox", params=params))
    return found


def uuids(api: Any, bot: str, **params: str) -> list[str]:
    return [item["uuid"] for item in inbox(api, bot, **params)["sessions"]]


def test_the_tabs_hold_whose_conversations_and_count_them(alice: Api, client: TestClient, db: Db) -> None:
    bot = helpdesk(alice)
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    sam = person(client, db, "alice@example.com", "sam@example.com", Role.OPERATOR)
    bots_own, waiting, annas, sams = (new_session(alice, bot) for _ in range(4))
    ask(alice, bots_own, "When will my parcel arrive?")
    for chat in (waiting, annas, sams):
        ask(alice, chat, ASKING)
    anna.ok(anna.post(f"/session/{annas}/assign", {"me": True}))
    sam.ok(sam.post(f"/session/{sams}/assign", {"me": True}))

    assert sorted(uuids(anna, bot)) == sorted([waiting, annas, sams])  # the team's: not the bot's own
    assert uuids(anna, bot, view="mine") == [annas]
    assert uuids(sam, bot, view="mine") == [sams]
    assert uuids(alice, bot, view="mine") == []  # an API key is nobody
    assert uuids(anna, bot, view="unassigned") == [waiting]
    assert uuids(anna, bot, view="waiting") == [waiting]
    assert sorted(uuids(anna, bot, view="all")) == sorted([bots_own, waiting, annas, sams])
    assert inbox(anna, bot)["counts"] == {"mine": 1, "unassigned": 1, "waiting": 1, "all": 4}
    assert inbox(alice, bot)["counts"]["mine"] == 0

    alice.ok(alice.post(f"/session/{sams}/status", {"status": "pending"}))  # someone set a status: the team's
    alice.ok(alice.post(f"/session/{bots_own}/status", {"status": "pending"}))
    assert sorted(uuids(anna, bot, status="pending")) == sorted([bots_own, sams])
    assert inbox(sam, bot)["counts"] == {"mine": 0, "unassigned": 1, "waiting": 1, "all": 2}  # the open ones
    assert inbox(sam, bot, status="all")["counts"] == {"mine": 1, "unassigned": 2, "waiting": 1, "all": 4}
    assert_error(alice.get(f"/chatbot/{bot}/inbox", params={"view": "theirs"}), 422, "validation_error")
    assert_error(alice.get(f"/chatbot/{bot}/inbox", params={"status": "closed"}), 422, "validation_error")


def test_the_channel_and_the_words_narrow_the_list(alice: Api, db: Db) -> None:
    bot = helpdesk(alice)
    widget, telegram = new_session(alice, bot), new_session(alice, bot)
    ask(alice, widget, ASKING)
    ask(alice, telegram, ASKING)
    ask(alice, telegram, "My order number is ZX-4471, the Blue Kettle")

    async def on_telegram(session: Any) -> None:
        channel = Channel(chatbot_uuid=bot, type="telegram", name="Shop bot")
        session.add(channel)
        await session.flush()
        values = {"channel_uuid": channel.uuid, "channel_user": "42", "channel_user_name": "Ada Lovelace"}
        await session.execute(update(ChatSession).where(ChatSession.uuid == telegram).values(values))

    db.run(on_telegram)
    assert uuids(alice, bot, channel="widget") == [widget]
    assert uuids(alice, bot, channel="telegram") == [telegram]
    assert uuids(alice, bot, channel="slack") == []
    assert_error(alice.get(f"/chatbot/{bot}/inbox", params={"channel": "fax"}), 422, "validation_error")
    assert uuids(alice, bot, q="blue kettle") == [telegram]  # case-insensitive, the customer's words
    assert uuids(alice, bot, q="zx-4471") == [telegram]
    assert uuids(alice, bot, q="ada love") == [telegram]  # the customer's name on the channel
    assert uuids(alice, bot, q="100%") == []  # a LIKE wildcard is a character like any other
    alice.ok(alice.post(f"/session/{widget}/live-chat/start"))
    alice.ok(alice.post(f"/session/{widget}/live-chat/message", {"text": "Your refund is on its way"}))
    assert uuids(alice, bot, q="REFUND") == [widget]  # an operator's words
    assert inbox(alice, bot, q="refund")["counts"]["all"] == 1
    (item,) = inbox(alice, bot, channel="telegram")["sessions"]
    assert item["channel_type"] == "telegram" and item["channel"]["user_name"] == "Ada Lovelace"


def test_who_waits_longest_comes_first(alice: Api) -> None:
    bot = helpdesk(alice)
    answered, later, earlier, waits = (new_session(alice, bot) for _ in range(4))
    for chat in (answered, later, earlier):
        ask(alice, chat, ASKING)
        alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    ask(alice, earlier, "Hello? Is anyone there?")  # unanswered first
    ask(alice, later, "Are you there?")
    ask(alice, answered, "Invoice 2024-17 is wrong")
    alice.ok(alice.post(f"/session/{answered}/live-chat/message", {"text": "Let me check"}))  # the latest activity
    ask(alice, waits, ASKING)
    listed = inbox(alice, bot)["sessions"]
    assert [item["uuid"] for item in listed] == [waits, earlier, later, answered]
    assert listed[0]["waiting_since"] and listed[0]["unanswered_since"] is None  # the bot told it a person comes
    assert listed[1]["unanswered_since"] <= listed[2]["unanswered_since"]
    assert listed[3]["unanswered_since"] is None
    assert all(item["last_message_at"] for item in listed)
    alice.ok(alice.post(f"/session/{earlier}/live-chat/message", {"text": "Yes, here"}))
    assert uuids(alice, bot) == [waits, later, earlier, answered]  # answered: by latest activity now


def test_unread_counts_are_each_persons_own(alice: Api, client: TestClient, db: Db) -> None:
    bot = helpdesk(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, ASKING)
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    sam = person(client, db, "alice@example.com", "sam@example.com", Role.OPERATOR)

    def unread(who: Any) -> tuple[int, int]:
        found = inbox(who, bot)
        (item,) = found["sessions"]
        return item["unread"], found["unread"]

    assert unread(anna) == unread(sam) == unread(alice) == (1, 1)
    seen = anna.ok(anna.post(f"/session/{chat}/seen"))
    assert unread(anna) == (0, 0)
    assert unread(sam) == (1, 1)  # anna's reading is hers
    assert unread(alice) == (1, 1)  # and not the account-wide mark an API key keeps
    (item,) = inbox(anna, bot)["sessions"]
    assert item["seen_at"] == seen["seen_at"]
    ask(alice, chat, "It is about my order 1234")
    assert unread(anna) == (1, 1) and unread(sam) == (2, 2)
    anna.ok(anna.post(f"/session/{chat}/seen"))  # again: her mark moves
    assert unread(anna) == (0, 0)
    alice.ok(alice.post(f"/session/{chat}/seen"))  # the key's mark: for the key's reading, not the people's
    assert unread(alice) == (0, 0) and unread(sam) == (2, 2)
