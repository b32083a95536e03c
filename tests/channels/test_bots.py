"""One channel per bot, both databases, against the loopback Telegram and Slack APIs: a second channel on a bot
another channel is on (of any chatbot, of any account) is refused with 409 `channel_bot_in_use` before the provider
is asked anything, writing nothing and saying nothing of the other channel; a token changed to such a bot's is
refused likewise; once the other channel is deleted, the bot is free. The database keeps a keyed fingerprint of the
token, never the token."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.main import create_app
from botyard.models import Channel
from tests.support.api import Api, assert_error
from tests.support.channels import PUBLIC_URL
from tests.support.database import Db, database_dump
from tests.support.fake_dns import FakeDns
from tests.support.slack_api import BOT_TOKEN, SIGNING_SECRET, SlackApi, slack_api
from tests.support.telegram_api import OTHER_TOKEN, TOKEN, TelegramApi, telegram_api


@pytest.fixture
def bot_api() -> Iterator[TelegramApi]:
    with telegram_api() as running:
        yield running


@pytest.fixture
def workspace() -> Iterator[SlackApi]:
    with slack_api() as running:
        yield running


@pytest.fixture
def app(
    settings: Settings, client: TestClient, fake_dns: FakeDns, bot_api: TelegramApi, workspace: SlackApi
) -> Iterator[TestClient]:
    urls = {"public_url": PUBLIC_URL, "telegram_api_url": bot_api.url, "slack_api_url": workspace.url}
    patched = settings.model_copy(update=urls)
    with TestClient(create_app(patched, resolver=fake_dns), raise_server_exceptions=False) as own:
        yield own


def account(app: TestClient, issued_keys: list[str], email: str) -> Api:
    issued = Db(app).run(lambda session: issue_key(session, email))
    issued_keys.append(issued.key)
    return Api(app, issued.key)


def telegram(api: Api, bot: str, token: str, **fields: Any) -> Any:
    body = {"type": "telegram", "name": "Shop bot", "credentials": {"bot_token": token}, **fields}
    return api.post(f"/chatbot/{bot}/channel/create", body)


def test_a_second_channel_on_a_telegram_bot_is_refused_whoever_owns_it_and_nothing_is_written(
    app: TestClient, issued_keys: list[str], bot_api: TelegramApi, settings: Settings
) -> None:
    owner, stranger = account(app, issued_keys, "owner@example.com"), account(app, issued_keys, "other@example.com")
    first_bot, second_bot = owner.chatbot()["uuid"], owner.chatbot()["uuid"]
    first = owner.ok(telegram(owner, first_bot, TOKEN))
    webhook = bot_api.webhook
    asked = len(bot_api.calls("getMe"))
    refused = assert_error(telegram(owner, second_bot, TOKEN), 409, "channel_bot_in_use")
    assert "@BotFather" in refused["error"] and "Delete that channel" in refused["error"]
    polling = telegram(owner, second_bot, TOKEN, settings={"mode": "polling"})
    assert assert_error(polling, 409, "channel_bot_in_use") == refused
    theirs = assert_error(telegram(stranger, stranger.chatbot()["uuid"], TOKEN), 409, "channel_bot_in_use")
    assert theirs == refused  # the same words: nothing of the other account's channel
    assert first["uuid"] not in str(theirs) and first_bot not in str(theirs)
    assert owner.ok(owner.get(f"/chatbot/{second_bot}/channels")) == []
    assert len(bot_api.calls("getMe")) == asked and bot_api.webhook == webhook  # Telegram was asked nothing
    assert TOKEN not in database_dump(settings)
    stored = Db(app).run(lambda s: s.scalar(select(Channel.bot_fingerprint).where(Channel.uuid == first["uuid"])))
    assert stored is not None and len(stored) == 64 and TOKEN not in stored

    other = owner.ok(telegram(owner, second_bot, OTHER_TOKEN))  # another bot: its own channel
    moved = owner.post(f"/channel/{other['uuid']}/update", {"credentials": {"bot_token": TOKEN}})
    assert assert_error(moved, 409, "channel_bot_in_use") == refused
    unchanged = owner.ok(owner.get(f"/channel/{other['uuid']}"))
    assert unchanged["credentials"] == {"bot_token": "••••" + OTHER_TOKEN[-4:]}
    owner.ok(owner.post(f"/channel/{other['uuid']}/update", {"name": "renamed"}))  # its own bot: no conflict

    owner.ok(owner.delete(f"/channel/{first['uuid']}/delete"))
    taken = owner.ok(owner.post(f"/channel/{other['uuid']}/update", {"credentials": {"bot_token": TOKEN}}))
    assert taken["credentials"] == {"bot_token": "••••" + TOKEN[-4:]}
    assert owner.ok(telegram(stranger, stranger.chatbot()["uuid"], OTHER_TOKEN))["type"] == "telegram"  # freed


def test_two_channels_made_at_once_on_one_bot_one_is_refused(app: TestClient, issued_keys: list[str]) -> None:
    owner = account(app, issued_keys, "owner@example.com")
    bots = [owner.chatbot()["uuid"] for _ in range(2)]
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda bot: telegram(owner, bot, TOKEN), bots))
    assert sorted(answer.status_code for answer in answers) == [200, 409]
    assert sum(len(owner.ok(owner.get(f"/chatbot/{bot}/channels"))) for bot in bots) == 1


def test_a_second_channel_on_a_slack_bot_token_is_refused(app: TestClient, issued_keys: list[str]) -> None:
    owner = account(app, issued_keys, "owner@example.com")
    body = {"type": "slack", "credentials": {"bot_token": BOT_TOKEN, "signing_secret": SIGNING_SECRET}}
    first = owner.ok(owner.post(f"/chatbot/{owner.chatbot()['uuid']}/channel/create", body))
    second_bot = owner.chatbot()["uuid"]
    refused = assert_error(owner.post(f"/chatbot/{second_bot}/channel/create", body), 409, "channel_bot_in_use")
    assert "Slack" in refused["error"]
    assert owner.ok(owner.get(f"/chatbot/{second_bot}/channels")) == []
    secret_only = {"credentials": {"signing_secret": "a-new-signing-secret"}}
    assert owner.ok(owner.post(f"/channel/{first['uuid']}/update", secret_only))["uuid"] == first["uuid"]
