"""Telegram long polling, both databases, against the loopback Bot API (whose `getUpdates` answers 409 to a second
poller or while a webhook is set, as Telegram does): choosing `polling` removes the webhook and needs no public
address; one process polls a bot at a time; when it dies, another takes over once its lease has expired, from the
stored offset, and no update is lost or answered twice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.channels.polling import ChannelPollers
from botyard.config import Settings
from botyard.models import Channel, ChannelEvent
from botyard.runtime import Runtime
from tests.support.api import Api
from tests.support.channels import owner_app, run_channel_jobs
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.jobs import process
from tests.support.telegram_api import TOKEN, TelegramApi, telegram_api, update
from tests.support.waiting import wait_for


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
    """An owner on an app that keeps the suite's default address (http://localhost:8000: no webhook could reach it)."""
    urls = {"public_url": settings.public_url, "telegram_api_url": bot_api.url}
    with owner_app(settings, fake_dns, clock, issued_keys, **urls) as own:
        yield own


def polling_channel(api: Api) -> dict[str, Any]:
    bot: str = api.chatbot()["uuid"]
    qa = {"question": "When is the shop open?", "answer": "The shop is open from nine to five, Monday to Friday."}
    api.ok(api.post(f"/chatbot/{bot}/data-source/qa", qa))
    process(api.client)
    body = {"type": "telegram", "credentials": {"bot_token": TOKEN}, "settings": {"mode": "polling"}}
    channel: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/channel/create", body))
    return channel


def pollers(client: TestClient, clock: ManualClock) -> ChannelPollers:
    """One process's pollers, as `botyard serve` runs them, but turned by the test (no background loop)."""
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    return ChannelPollers(runtime.database, runtime.settings, runtime.egress, clock, long_poll_seconds=0)


def turn(client: TestClient, poller: ChannelPollers, channel_uuid: str) -> bool:
    assert client.portal is not None
    held: bool = client.portal.call(poller.turn, channel_uuid)
    return held


def test_polling_needs_no_public_address_and_removes_the_webhook(owner: Api, bot_api: TelegramApi) -> None:
    channel = polling_channel(owner)
    assert channel["settings"]["mode"] == "polling"
    assert bot_api.calls("deleteWebhook") and not bot_api.calls("setWebhook") and bot_api.webhook == {}
    switched = owner.post(f"/channel/{channel['uuid']}/update", {"settings": {"mode": "webhook"}})
    assert switched.status_code == 422 and switched.json()["code"] == "public_url_required"  # http://localhost


def test_a_second_process_takes_over_a_dead_pollers_bot_losing_and_doubling_nothing(
    owner: Api, bot_api: TelegramApi, clock: ManualClock
) -> None:
    channel = polling_channel(owner)
    client = owner.client
    first, second = pollers(client, clock), pollers(client, clock)
    bot_api.queue_updates(update(1, "When are you open?", user=1), update(2, "When are you open?", user=2))
    assert turn(client, first, channel["uuid"]) is True
    assert turn(client, second, channel["uuid"]) is False  # one process polls a bot at a time
    # The first process dies in the middle of its work: it never renews its lease again.
    bot_api.queue_updates(update(3, "When are you open?", user=3), update(4, "When are you open?", user=4))
    assert turn(client, second, channel["uuid"]) is False
    clock.advance(first.lease.total_seconds() + 1)
    assert turn(client, second, channel["uuid"]) is True  # taken over, from the stored offset
    assert turn(client, first, channel["uuid"]) is False  # the first, back from the dead, holds nothing
    run_channel_jobs(client, clock)
    assert sorted(sent.chat_id for sent in bot_api.sent()) == ["1", "2", "3", "4"]  # each once
    assert all("nine to five" in sent.text for sent in bot_api.sent())
    assert bot_api.conflicts == 0  # never two getUpdates of the bot at once
    assert owner.ok(owner.get(f"/channel/{channel['uuid']}"))["status"]["last_event_at"] is not None


def test_a_disabled_channel_is_not_polled(owner: Api, bot_api: TelegramApi, clock: ManualClock) -> None:
    channel = polling_channel(owner)
    owner.ok(owner.post(f"/channel/{channel['uuid']}/update", {"enabled": False}))
    bot_api.queue_updates(update(1, "hello"))
    assert turn(owner.client, pollers(owner.client, clock), channel["uuid"]) is False
    assert bot_api.calls("getUpdates") == []


def test_the_running_pollers_find_a_polling_channel_poll_it_and_give_it_back_when_they_stop(
    owner: Api, bot_api: TelegramApi, clock: ManualClock, db: Db
) -> None:
    channel = polling_channel(owner)
    client = owner.client
    running = ChannelPollers(
        client.app.state.runtime.database,  # type: ignore[attr-defined]
        client.app.state.runtime.settings,  # type: ignore[attr-defined]
        client.app.state.runtime.egress,  # type: ignore[attr-defined]
        clock,
        look_seconds=0.05,
        long_poll_seconds=1,
    )
    assert client.portal is not None
    client.portal.call(running.start)
    try:
        bot_api.queue_updates(update(11, "When are you open?", user=5))
        wait_for(
            lambda: db.run(lambda s: s.scalar(select(func.count()).select_from(ChannelEvent))) == 1,
            30,
            "the update stored",
        )
        assert set(running.polling) == {channel["uuid"]}
    finally:
        client.portal.call(running.stop)
    holder = db.run(lambda s: s.scalar(select(Channel.poll_holder).where(Channel.uuid == channel["uuid"])))
    assert holder is None  # given back: another process may take it at once
    run_channel_jobs(client, clock)
    assert [sent.chat_id for sent in bot_api.sent()] == ["5"] and bot_api.conflicts == 0
