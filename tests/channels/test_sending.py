"""Replies outlast a provider that is down, both databases: the loopback Telegram stops listening (every connection
refused, as a host whose server stopped) for a minute of the test's clock while replies are due, then comes back on
the same port; each reply arrives once, in order within its conversation, and the channel's status shows the error
while it lasts and clears once a reply goes out again."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import ChannelReply
from tests.support.api import Api
from tests.support.channels import owner_app, run_channel_jobs
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.jobs import process
from tests.support.telegram_api import TOKEN, TelegramApi, telegram_api, update

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


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
    with owner_app(settings, fake_dns, clock, issued_keys, telegram_api_url=bot_api.url) as own:
        yield own


def shop_channel(api: Api) -> str:
    bot: str = api.chatbot()["uuid"]
    for question, answer in (
        ("When is the shop open on weekdays?", "The shop is open from nine to five, Monday to Friday."),
        ("Is the shop open on Saturdays?", "On Saturdays the shop opens from ten to two."),
    ):
        api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": question, "answer": answer}))
    process(api.client)
    body = {"type": "telegram", "credentials": {"bot_token": TOKEN}}
    uuid: str = api.ok(api.post(f"/chatbot/{bot}/channel/create", body))["uuid"]
    return uuid


def test_a_minute_without_telegram_the_replies_arrive_once_each_in_order_and_the_status_says_so_meanwhile(
    owner: Api, bot_api: TelegramApi, clock: ManualClock, db: Db
) -> None:
    channel = shop_channel(owner)
    headers = {SECRET_HEADER: bot_api.webhook["secret_token"]}

    def deliver(*updates: dict[str, object]) -> None:
        for body in updates:
            assert owner.client.post(f"/channels/{channel}/inbound", json=body, headers=headers).status_code == 200

    bot_api.down()
    deliver(update(1, "When is the shop open on weekdays?", user=1), update(2, "Hello, are you open?", user=2))
    clock.advance(5)  # a question of its own, answered after the first in that conversation
    deliver(update(3, "Is the shop open on Saturdays?", user=1))
    back = clock.now + timedelta(seconds=60)
    run_channel_jobs(owner.client, clock, until=back)
    assert bot_api.sent() == []
    replies = db.run(lambda s: s.scalars(select(ChannelReply))).all()
    assert len(replies) == 3 and {reply.state for reply in replies} == {"pending"}
    tried = sorted(reply.attempts for reply in replies)
    assert tried[0] == 0 and tried[1] >= 5, tried  # tried again and again; the later one waits for the earlier
    status = owner.ok(owner.get(f"/channel/{channel}"))["status"]
    assert "Telegram unreachable" in status["last_error"] and status["last_error_at"] is not None
    assert status["last_sent_at"] is None

    clock.now = back
    bot_api.up()
    run_channel_jobs(owner.client, clock)
    sent = bot_api.sent()
    assert sorted(message.chat_id for message in sent) == ["1", "1", "2"]  # each once
    first, saturday = (message.text for message in sent if message.chat_id == "1")
    assert "nine to five" in first and "ten to two" in saturday  # in the order they were asked
    replies = db.run(lambda s: s.scalars(select(ChannelReply))).all()
    assert {reply.state for reply in replies} == {"sent"}
    status = owner.ok(owner.get(f"/channel/{channel}"))["status"]
    assert status["last_error"] == "" and status["last_error_at"] is None and status["last_sent_at"] is not None
