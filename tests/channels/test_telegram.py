"""Telegram end to end against a Bot API server on loopback (tests/support/telegram_api.py), both databases: the
token checked and the webhook set when the channel is made, a message answered on its chat, signatures refused,
repeats answered once, a burst joined into one question, Telegram's 429 and 500 outlasted, another account's
channel missing. The clock is moved by hand: no test waits for a burst or a retry."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import ChannelEvent, ChannelReply, ChatSession, Job
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.channels import PUBLIC_URL, connect, deliver, owner_app, run_channel_jobs, shop
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.telegram_api import TOKEN, TelegramApi, telegram_api, too_many, trouble, update


@pytest.fixture
def bot_api() -> Iterator[TelegramApi]:
    with telegram_api() as running:
        yield running


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def owner(
    settings: Settings,
    client: TestClient,
    fake_dns: FakeDns,
    issued_keys: list[str],
    clock: ManualClock,
    bot_api: TelegramApi,
) -> Iterator[Api]:
    """The owner of a chatbot on an app whose public address is https and whose Telegram is the loopback one."""
    with owner_app(settings, fake_dns, clock, issued_keys, telegram_api_url=bot_api.url) as own:
        yield own


def test_a_channel_checks_the_token_sets_the_webhook_and_never_shows_the_token(
    owner: Api, bot_api: TelegramApi
) -> None:
    bot = shop(owner)
    channel = connect(owner, bot)
    assert channel["type"] == "telegram" and channel["name"] == "Shop bot" and channel["enabled"] is True
    assert channel["inbound_url"] == f"{PUBLIC_URL}/channels/{channel['uuid']}/inbound"
    assert channel["credentials"] == {"bot_token": "••••" + TOKEN[-4:]}
    assert len(bot_api.calls("getMe")) == 1
    assert bot_api.webhook["url"] == channel["inbound_url"]
    assert len(bot_api.webhook["secret_token"]) >= 32
    for shown in (
        channel,
        owner.ok(owner.get(f"/channel/{channel['uuid']}")),
        owner.ok(owner.get(f"/chatbot/{bot}/channels")),
    ):
        assert TOKEN not in str(shown) and bot_api.webhook["secret_token"] not in str(shown)
    assert channel["settings"] == {"mode": "webhook", "burst_seconds": 1.0, "session_idle_hours": 24.0}
    assert channel["status"] == {"last_event_at": None, "last_sent_at": None, "last_error": "", "last_error_at": None}


def test_a_token_telegram_refuses_and_an_address_it_cannot_reach_are_refused_storing_nothing(
    owner: Api, alice: Api, bot_api: TelegramApi, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="botyard.egress")
    bot = owner.chatbot()["uuid"]
    body = {"type": "telegram", "credentials": {"bot_token": "999:not-a-token"}}
    refused = assert_error(owner.post(f"/chatbot/{bot}/channel/create", body), 422, "channel_refused")
    assert "Unauthorized" in refused["error"] and "not-a-token" not in refused["error"]
    assert "not-a-token" not in caplog.text
    missing = assert_error(owner.post(f"/chatbot/{bot}/channel/create", {"type": "telegram"}), 422, "validation_error")
    assert missing["details"][0]["field"] == "credentials.bot_token"
    assert owner.ok(owner.get(f"/chatbot/{bot}/channels")) == []
    # The suite's own app keeps the default public address, http://localhost:8000: Telegram could never reach it.
    other = alice.chatbot()["uuid"]
    body["credentials"] = {"bot_token": TOKEN}
    plain = assert_error(alice.post(f"/chatbot/{other}/channel/create", body), 422, "public_url_required")
    assert "BOTYARD_PUBLIC_URL" in plain["error"]


def test_a_message_is_answered_on_its_chat_with_typing_meanwhile(
    owner: Api, bot_api: TelegramApi, clock: ManualClock, db: Db
) -> None:
    bot = shop(owner)
    channel = connect(owner, bot)
    secret = bot_api.webhook["secret_token"]
    accepted = deliver(owner, channel, update(1001, "When are you open?", user=42), secret)
    assert accepted.status_code == 200 and accepted.json() == {"ok": True}
    assert bot_api.sent() == []  # nothing is answered inside the request
    run_channel_jobs(owner.client, clock)
    [reply] = bot_api.sent()
    assert reply.chat_id == "42" and reply.parse_mode == "HTML"
    assert "nine to five" in reply.text
    typing = bot_api.calls("sendChatAction")  # repeated every 4 s while an answer takes longer (a busy machine)
    assert typing and all(call == {"chat_id": "42", "action": "typing"} for call in typing)
    sessions = db.run(lambda s: s.scalars(select(ChatSession).where(ChatSession.channel_uuid == channel["uuid"]))).all()
    assert [(s.channel_user, s.channel_user_name, s.channel_thread) for s in sessions] == [("42", "Ada Lovelace", "42")]
    status = owner.ok(owner.get(f"/channel/{channel['uuid']}"))["status"]
    assert status["last_event_at"] is not None and status["last_sent_at"] is not None and status["last_error"] == ""
    # The next message continues the same session.
    deliver(owner, channel, update(1002, "And on Saturdays?", user=42), secret)
    run_channel_jobs(owner.client, clock)
    assert len(bot_api.sent()) == 2
    assert (
        db.run(
            lambda s: s.scalar(
                select(func.count()).select_from(ChatSession).where(ChatSession.channel_uuid == channel["uuid"])
            )
        )
        == 1
    )


@pytest.mark.parametrize(
    "secret", [None, "", "a-wrong-secret-of-the-right-length-000000000"], ids=["missing", "empty", "wrong"]
)
def test_a_delivery_without_the_channels_secret_is_refused_and_writes_nothing(
    owner: Api, bot_api: TelegramApi, db: Db, secret: str | None
) -> None:
    channel = connect(owner, shop(owner))
    assert_error(deliver(owner, channel, update(7, "Hello"), secret), 401, "signature_invalid")
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(ChannelEvent))) == 0
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(Job).where(Job.kind == "channel_answer"))) == 0
    assert owner.ok(owner.get(f"/channel/{channel['uuid']}"))["status"]["last_event_at"] is None


def test_the_same_update_delivered_again_and_five_times_at_once_is_answered_once(
    owner: Api, bot_api: TelegramApi, clock: ManualClock
) -> None:
    channel = connect(owner, shop(owner))
    secret = bot_api.webhook["secret_token"]
    first = deliver(owner, channel, update(2001, "When are you open?"), secret)
    assert first.json() == {"ok": True}
    assert deliver(owner, channel, update(2001, "When are you open?"), secret).json() == {"ok": True, "duplicate": True}
    run_channel_jobs(owner.client, clock)
    assert len(bot_api.sent()) == 1
    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(lambda _: deliver(owner, channel, update(2002, "Open on Saturday?"), secret), range(5)))
    assert [answer.status_code for answer in answers] == [200] * 5
    assert sum(answer.json() == {"ok": True} for answer in answers) == 1
    run_channel_jobs(owner.client, clock)
    assert len(bot_api.sent()) == 2  # one answer for each update, however many times it came


def test_a_burst_of_three_messages_out_of_order_is_one_question(
    owner: Api, bot_api: TelegramApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner, shop(owner))
    secret = bot_api.webhook["secret_token"]
    for number, text in ((3002, "are you"), (3001, "hello, when"), (3003, "open?")):  # Telegram's order: update_id
        deliver(owner, channel, update(number, text), secret)
        clock.advance(0.3)  # inside the burst's quiet second
    run_channel_jobs(owner.client, clock)
    [reply] = bot_api.sent()
    assert "nine to five" in reply.text
    [session] = db.run(
        lambda s: s.scalars(select(ChatSession).where(ChatSession.channel_uuid == channel["uuid"]))
    ).all()
    messages = owner.ok(owner.get(f"/session/{session.uuid}/messages"))
    assert [message["query"] for message in messages] == ["hello, when\nare you\nopen?"]


def test_telegrams_429_and_500_are_outlasted_and_the_replies_arrive_once_in_order(
    owner: Api, bot_api: TelegramApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner, shop(owner))
    secret = bot_api.webhook["secret_token"]
    bot_api.fail_next(too_many(30), trouble(), trouble())
    deliver(owner, channel, update(4001, "When are you open?"), secret)
    clock.advance(5)  # another burst: a second reply queued behind the first
    deliver(owner, channel, update(4002, "Do you open on Saturdays?"), secret)
    started = clock.now
    run_channel_jobs(owner.client, clock)
    sent = bot_api.sent()
    assert len(sent) == 2
    replies = db.run(lambda s: s.scalars(select(ChannelReply).order_by(ChannelReply.sequence))).all()
    assert [reply.state for reply in replies] == ["sent", "sent"]
    assert replies[0].attempts == 3 and replies[0].sent_at is not None and replies[1].sent_at is not None
    assert replies[0].sent_at <= replies[1].sent_at  # in order: the second waited for the first
    assert (replies[0].sent_at - started).total_seconds() >= 30  # Telegram's retry_after was honoured
    status = owner.ok(owner.get(f"/channel/{channel['uuid']}"))["status"]
    assert status["last_sent_at"] is not None and status["last_error"] == ""  # sent at last: the error is over


def test_a_refused_reply_fails_for_good_and_says_why_on_the_channel(
    owner: Api, bot_api: TelegramApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner, shop(owner))
    bot_api.fail_next((403, {"ok": False, "error_code": 403, "description": "Forbidden: bot was blocked by the user"}))
    deliver(owner, channel, update(5001, "When are you open?"), bot_api.webhook["secret_token"])
    run_channel_jobs(owner.client, clock)
    [reply] = db.run(lambda s: s.scalars(select(ChannelReply))).all()
    assert reply.state == "failed" and reply.attempts == 1 and "blocked" in reply.last_error
    assert "blocked by the user" in owner.ok(owner.get(f"/channel/{channel['uuid']}"))["status"]["last_error"]


@pytest.mark.parametrize(
    "body",
    [
        {"update_id": 6001, "edited_message": update(6001, "changed")["message"]},
        {
            "update_id": 6002,
            "message": {**update(6002, "hi")["message"], "from": {"id": 9, "is_bot": True, "first_name": "Other bot"}},
        },
        {"update_id": 6003, "message": {**update(6003, "x")["message"], "text": None, "sticker": {"file_id": "s"}}},
    ],
    ids=["edit", "another-bot", "sticker"],
)
def test_edits_bots_and_what_has_no_text_are_stored_and_not_answered(
    owner: Api, bot_api: TelegramApi, clock: ManualClock, body: dict[str, Any]
) -> None:
    channel = connect(owner, shop(owner))
    assert deliver(owner, channel, body, bot_api.webhook["secret_token"]).json() == {"ok": True}
    run_channel_jobs(owner.client, clock)
    assert bot_api.sent() == []


def test_a_body_that_is_not_an_update_is_acknowledged_and_ignored(owner: Api, bot_api: TelegramApi, db: Db) -> None:
    channel = connect(owner, shop(owner))
    secret = bot_api.webhook["secret_token"]
    for body in ({"hello": "world"}, [1, 2], {"update_id": "7", "message": {}}):
        answer = deliver(owner, channel, body, secret)
        assert answer.status_code == 200 and answer.json()["ignored"] == "not the provider's shape"
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(ChannelEvent))) == 0


def test_another_accounts_channel_is_missing_and_a_deleted_one_takes_no_deliveries(
    owner: Api, bot_api: TelegramApi, make_api: Any
) -> None:
    channel = connect(owner, shop(owner))
    other = Api(owner.client, make_api("mallory@example.com").key)  # another account, on the same database
    for response in (
        other.get(f"/channel/{channel['uuid']}"),
        other.post(f"/channel/{channel['uuid']}/update", {"name": "mine"}),
        other.delete(f"/channel/{channel['uuid']}/delete"),
        other.get(f"/chatbot/{channel['chatbot_uuid']}/channels"),
    ):
        assert_not_found(response)
    assert owner.ok(owner.get(f"/channel/{channel['uuid']}"))["name"] == "Shop bot"
    owner.ok(owner.delete(f"/channel/{channel['uuid']}/delete"))
    assert_not_found(deliver(owner, channel, update(8001, "hello"), bot_api.webhook["secret_token"]))


def test_the_owner_sees_and_filters_the_conversations_of_a_channel(
    owner: Api, bot_api: TelegramApi, clock: ManualClock
) -> None:
    bot = shop(owner)
    channel = connect(owner, bot)
    owner.ok(owner.post(f"/chatbot/{bot}/session/create", {}))  # a conversation of the API
    deliver(owner, channel, update(9001, "When are you open?", user=77), bot_api.webhook["secret_token"])
    run_channel_jobs(owner.client, clock)
    [on_channel] = owner.ok(owner.get(f"/chatbot/{bot}/conversations", params={"channel": channel["uuid"]}))
    assert on_channel["channel"] == {"uuid": channel["uuid"], "user_id": "77", "user_name": "Ada Lovelace"}
    assert on_channel["preview"] == "When are you open?"
    [elsewhere] = owner.ok(owner.get(f"/chatbot/{bot}/conversations", params={"channel": "web"}))
    assert elsewhere["channel"] is None
    assert owner.ok(owner.get(f"/chatbot/{bot}/conversations", params={"channel": "none"})) == [elsewhere]
    assert len(owner.ok(owner.get(f"/chatbot/{bot}/conversations"))) == 2


def test_over_the_chatbots_rate_limit_the_channel_says_its_rate_limit_message(
    owner: Api, bot_api: TelegramApi, clock: ManualClock
) -> None:
    bot = shop(owner)
    owner.ok(owner.post(f"/chatbot/{bot}/update", {"rate_limit": [1, 60], "rate_limit_message": "Slow down, please."}))
    channel = connect(owner, bot)
    secret = bot_api.webhook["secret_token"]
    deliver(owner, channel, update(9101, "When are you open?"), secret)
    run_channel_jobs(owner.client, clock)
    clock.advance(5)  # a question of its own, inside the minute
    deliver(owner, channel, update(9102, "And on Sundays?"), secret)
    run_channel_jobs(owner.client, clock)
    assert [sent.text for sent in bot_api.sent()][1] == "Slow down, please."
    clock.advance(60)  # the window has passed: answered again
    deliver(owner, channel, update(9103, "When are you open?"), secret)
    run_channel_jobs(owner.client, clock)
    assert "nine to five" in bot_api.sent()[2].text


def test_live_chat_on_telegram_the_operator_speaks_on_the_channel_and_the_bot_is_silent(
    owner: Api, bot_api: TelegramApi, clock: ManualClock, db: Db
) -> None:
    bot = shop(owner)
    channel = connect(owner, bot)
    secret = bot_api.webhook["secret_token"]
    deliver(owner, channel, update(9201, "When are you open?"), secret)
    run_channel_jobs(owner.client, clock)
    [session] = db.run(
        lambda s: s.scalars(select(ChatSession.uuid).where(ChatSession.channel_uuid == channel["uuid"]))
    ).all()
    owner.ok(owner.post(f"/session/{session}/live-chat/start"))
    [held] = owner.ok(owner.get(f"/chatbot/{bot}/inbox"))["sessions"]
    assert held["channel"] == {"uuid": channel["uuid"], "user_id": "42", "user_name": "Ada Lovelace"}  # who, where
    run_channel_jobs(owner.client, clock)
    assert bot_api.sent()[-1].text == "You are now chatting with a person."
    clock.advance(5)
    deliver(owner, channel, update(9202, "Can you hold a parcel for me?"), secret)
    run_channel_jobs(owner.client, clock)
    assert len(bot_api.sent()) == 2  # the bot said nothing: an operator has the conversation
    queries = [message["query"] for message in owner.ok(owner.get(f"/session/{session}/messages"))]
    assert "Can you hold a parcel for me?" in queries  # the operator reads it in the inbox
    owner.ok(owner.post(f"/session/{session}/live-chat/message", {"text": "Yes, until Friday <3 & more"}))
    owner.ok(owner.post(f"/session/{session}/live-chat/end"))
    run_channel_jobs(owner.client, clock)
    assert [sent.text for sent in bot_api.sent()[2:]] == [
        "Yes, until Friday <3 & more",  # escaped for Telegram's HTML, read back as written
        "The person has left the chat. I am back to answer your questions.",
    ]
    clock.advance(5)
    deliver(owner, channel, update(9203, "When are you open?"), secret)
    run_channel_jobs(owner.client, clock)
    assert "nine to five" in bot_api.sent()[-1].text  # handed back: the bot answers again
