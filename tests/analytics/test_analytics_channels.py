"""Analytics per channel (issue 49, item 4), both databases: a day of conversations on the web, a Helpdesk and a
Shop channel, counted per channel (`by_channel`: conversations, questions, outcomes) and narrowed to one channel
(`channel=web` or a channel's uuid: every figure, hand-offs and feedback included); another chatbot's or account's
channel answers 404, anything else 422."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.models import ChatbotEvent, ChatSession, Message, MessageFeedback
from tests.support.api import Api, assert_error
from tests.support.channels import run_channel_jobs, signed_headers
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.webhook_receiver import Receiver, receiver

DAY = datetime(2026, 7, 14, tzinfo=UTC)
PERIOD = {"start_timestamp": "2026-07-14", "end_timestamp": "2026-07-14T23:59:59Z"}
CONVERSATIONS: dict[str, list[tuple[str | None, str | None, int]]] = {
    "web": [("resolved", None, 2), ("unresolved", "no_answer", 1), (None, None, 0)],
    "helpdesk": [("resolved", None, 1), ("unresolved", "unsure", 1), ("handed_off", "visitor_asked", 2)],
    "shop": [("unresolved", "thumbs_down", 1)],
}
"""Per place, each conversation's (outcome, reason, questions asked)."""


@pytest.fixture
def callback() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


def generic(api: Api, bot: str, name: str, callback: Receiver) -> str:
    body = {"type": "generic", "name": name, "credentials": {"callback_url": callback.url("/replies")}}
    uuid: str = api.ok(api.post(f"/chatbot/{bot}/channel/create", body))["uuid"]
    return uuid


def script(db: Db, bot: str, channels: dict[str, str | None]) -> dict[str, list[str]]:
    """The conversations of `CONVERSATIONS` on the 14th, each question answered; the Helpdesk's hand-offs asked for a
    person (an event), and the Shop's rated an answer down. Answers the sessions' uuids per place."""

    async def go(s: AsyncSession) -> dict[str, list[str]]:
        made: dict[str, list[str]] = {}
        for place, conversations in CONVERSATIONS.items():
            for index, (outcome, reason, questions) in enumerate(conversations):
                at = DAY + timedelta(hours=9 + index)
                session = ChatSession(
                    chatbot_uuid=bot,
                    meta={},
                    created_at=at,
                    channel_uuid=channels[place],
                    channel_user=f"u-{index}" if channels[place] else "",
                    outcome=outcome,
                    outcome_reason=reason,
                )
                s.add(session)
                await s.flush()
                made.setdefault(place, []).append(session.uuid)
                for number in range(questions):
                    asked = at + timedelta(minutes=number + 1)
                    s.add(
                        Message(
                            session_uuid=session.uuid,
                            query=f"Question {number}?",
                            response="An answer.",
                            created_at=asked,
                        )
                    )
                if outcome == "handed_off":
                    s.add(
                        ChatbotEvent(chatbot_uuid=bot, session_uuid=session.uuid, kind="human_requested", created_at=at)
                    )
        await s.flush()
        return made

    made = db.run(go)

    async def rate(s: AsyncSession) -> None:
        [shop_message] = (await s.scalars(select(Message).where(Message.session_uuid == made["shop"][0]))).all()
        s.add(
            MessageFeedback(
                message_uuid=shop_message.uuid, chatbot_uuid=bot, rating="down", created_at=DAY + timedelta(hours=10)
            )
        )

    db.run(rate)
    return made


def analytics(api: Api, bot: str, **params: Any) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get(f"/chatbot/{bot}/analytics", params=PERIOD | params))
    return found


def figures(channel: str, kind: str, name: str, **counts: Any) -> dict[str, Any]:
    zero = {"conversations": 0, "messages": 0, "resolved": 0, "unsure": 0, "no_answer": 0, "unresolved": 0}
    found = {"channel": channel, "type": kind, "name": name, **zero, "handed_off": 0, **counts}
    # What the other counts leave, and the bot's own rate: derived, the buckets summing to the conversations.
    decided = found["resolved"] + found["unresolved"] + found["handed_off"]
    alone = found["resolved"] + found["unresolved"]
    bot_rate = round(found["resolved"] / alone, 4) if alone else None
    return found | {"no_outcome": found["conversations"] - decided, "bot_resolution_rate": bot_rate}


def test_each_channel_and_the_web_count_their_own_conversations(alice: Api, db: Db, callback: Receiver) -> None:
    bot = alice.chatbot()["uuid"]
    helpdesk, shop = generic(alice, bot, "Helpdesk", callback), generic(alice, bot, "Shop", callback)
    quiet = generic(alice, bot, "Quiet desk", callback)  # a channel nobody wrote to yet: zeros
    script(db, bot, {"web": None, "helpdesk": helpdesk, "shop": shop})
    found = analytics(alice, bot)
    assert found["channel"] is None
    web = figures("web", "web", "", conversations=3, messages=3, resolved=1, no_answer=1, unresolved=1)
    web["resolution_rate"] = 0.5  # the third conversation asked nothing: no outcome
    desk = figures(
        helpdesk, "generic", "Helpdesk", conversations=3, messages=4, resolved=1, unsure=1, unresolved=1, handed_off=1
    )
    desk["resolution_rate"] = 0.3333
    shop_figures = figures(shop, "generic", "Shop", conversations=1, messages=1, unresolved=1, resolution_rate=0.0)
    assert found["by_channel"] == [
        web,
        desk,
        shop_figures,
        figures(quiet, "generic", "Quiet desk", resolution_rate=None),
    ]
    totals = found["totals"]
    assert (totals["conversations"], totals["messages"], totals["handed_off"], totals["feedback_down"]) == (7, 8, 1, 1)
    assert (totals["resolved"], totals["unresolved"]) == (2, 3)
    # Every conversation in one bucket: the web's third asked nothing, the Helpdesk's third was handed to a person.
    assert [entry["no_outcome"] for entry in found["by_channel"]] == [1, 0, 0, 0]
    assert [entry["bot_resolution_rate"] for entry in found["by_channel"]] == [0.5, 0.5, 0.0, None]
    buckets = [totals[key] for key in ("resolved", "unresolved", "handed_to_person", "no_outcome")]
    assert buckets == [2, 3, 1, 1] and sum(buckets) == totals["conversations"]
    assert (totals["bot_conversations"], totals["bot_resolution_rate"], totals["resolution_rate"]) == (5, 0.4, 0.3333)


def test_a_channel_filter_narrows_every_figure(alice: Api, db: Db, callback: Receiver) -> None:
    bot = alice.chatbot()["uuid"]
    helpdesk, shop = generic(alice, bot, "Helpdesk", callback), generic(alice, bot, "Shop", callback)
    script(db, bot, {"web": None, "helpdesk": helpdesk, "shop": shop})
    on_helpdesk = analytics(alice, bot, channel=helpdesk)
    assert on_helpdesk["channel"] == helpdesk
    assert [entry["channel"] for entry in on_helpdesk["by_channel"]] == [helpdesk]
    totals = on_helpdesk["totals"]
    assert (totals["conversations"], totals["messages"], totals["handed_off"], totals["feedback_down"]) == (3, 4, 1, 0)
    assert [day["conversations"] for day in on_helpdesk["days"]] == [3]
    assert on_helpdesk["top_questions"] == [
        {"question": "Question 0?", "count": 3},
        {"question": "Question 1?", "count": 1},
    ]
    on_shop = analytics(alice, bot, channel=shop)["totals"]
    assert (on_shop["conversations"], on_shop["handed_off"], on_shop["feedback_down"], on_shop["unresolved"]) == (
        1,
        0,
        1,
        1,
    )
    on_web = analytics(alice, bot, channel="web")
    assert [entry["channel"] for entry in on_web["by_channel"]] == ["web"]
    assert (on_web["totals"]["conversations"], on_web["totals"]["messages"], on_web["totals"]["handed_off"]) == (
        3,
        3,
        0,
    )


def test_a_message_answered_on_a_channel_counts_on_that_channel(
    alice: Api, client: TestClient, callback: Receiver
) -> None:
    """End to end: a signed message on a generic channel is answered from the knowledge; analytics count its
    conversation, question and outcome on that channel, not on the web."""
    bot = alice.chatbot()["uuid"]
    qa = {"question": "When is the shop open?", "answer": "The shop is open from nine to five, Monday to Friday."}
    alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", qa))
    process(alice.client)
    body = {"type": "generic", "name": "Helpdesk", "credentials": {"callback_url": callback.url("/replies")}}
    channel = alice.ok(alice.post(f"/chatbot/{bot}/channel/create", body))
    event = {"id": "evt-1", "type": "message", "user": {"id": "u-7", "name": "Ada"}, "text": "When are you open?"}
    raw = json.dumps(event).encode()
    headers = signed_headers(channel["signing_secret"], "evt-1", raw)
    assert client.post(f"/channels/{channel['uuid']}/inbound", content=raw, headers=headers).status_code == 200
    run_channel_jobs(client, ManualClock())
    [reply] = [received.event for received in callback.received if received.event["type"] == "message"]
    assert "nine to five" in reply["text"]
    found = alice.ok(alice.get(f"/chatbot/{bot}/analytics"))
    on_channel = figures(
        channel["uuid"], "generic", "Helpdesk", conversations=1, messages=1, resolved=1, resolution_rate=1.0
    )
    assert found["by_channel"] == [figures("web", "web", "", resolution_rate=None), on_channel]
    assert alice.ok(alice.get(f"/chatbot/{bot}/analytics", params={"channel": "web"}))["totals"]["conversations"] == 0


def test_another_chatbots_channel_is_missing_and_a_malformed_one_refused(
    alice: Api, bob: Api, callback: Receiver
) -> None:
    bot, other = alice.chatbot()["uuid"], alice.chatbot("Other desk")["uuid"]
    theirs = generic(bob, bob.chatbot()["uuid"], "Bob's desk", callback)
    elsewhere = generic(alice, other, "Other desk", callback)
    path = f"/chatbot/{bot}/analytics"
    for channel in (theirs, elsewhere, "0" * 32):
        body = assert_error(alice.get(path, params={"channel": channel}), 404, "not_found")
        assert "Channel" in body["error"]
    for channel in ("telegram", "none", "WEB", elsewhere.upper(), "x" * 65, ""):
        body = assert_error(alice.get(path, params={"channel": channel}), 422, "validation_error")
    assert "web" in body["error"]
    assert_error(bob.get(path, params={"channel": "web"}), 404, "not_found")  # not bob's chatbot, whatever the channel
