"""A thousand idle channels cost the running service nothing, both databases: with 1,000 Telegram webhook channels
made (through the service layer, each on a bot of its own), the process's pollers take none of them and the process
holds no more asyncio tasks, timers or sockets than before; one polling channel gets exactly one poller."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.channels import service
from botyard.channels.polling import ChannelPollers
from botyard.channels.schemas import ChannelCreate
from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.main import create_app
from botyard.runtime import Runtime
from tests.support.api import Api
from tests.support.channels import PUBLIC_URL
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.telegram_api import TOKEN, TelegramApi, bot_token, telegram_api

pytestmark = pytest.mark.timeout(900)  # a thousand channels made, each asking Telegram twice

CHANNELS = 1000
SLACK = 20
"""What the process may hold more after them than before, whatever the channels: far fewer than one per channel
(the egress client keeps a few connections open, the app's own tasks come and go)."""


@pytest.fixture
def bot_api() -> Iterator[TelegramApi]:
    with telegram_api() as running:
        yield running


@pytest.fixture
def app(settings: Settings, client: TestClient, fake_dns: FakeDns, bot_api: TelegramApi) -> Iterator[TestClient]:
    patched = settings.model_copy(update={"public_url": PUBLIC_URL, "telegram_api_url": bot_api.url})
    with TestClient(create_app(patched, resolver=fake_dns), raise_server_exceptions=False) as own:
        yield own


def held(app: TestClient) -> dict[str, int]:
    """The asyncio tasks and timers of the app's loop, and this process's open sockets."""

    async def count() -> dict[str, int]:
        loop = asyncio.get_running_loop()
        scheduled: list[Any] = getattr(loop, "_scheduled", [])
        timers = sum(1 for handle in scheduled if not handle.cancelled())  # a cancelled one waits to be dropped
        return {"tasks": len(asyncio.all_tasks()), "timers": timers}

    assert app.portal is not None
    counted = app.portal.call(count)
    descriptors = os.listdir("/proc/self/fd")
    counted["sockets"] = sum(1 for fd in descriptors if _link(fd).startswith("socket:"))
    return counted


def _link(fd: str) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # closed meanwhile
        return ""


def make_channels(app: TestClient, account: str, chatbot: str, count: int) -> None:
    runtime: Runtime = app.app.state.runtime  # type: ignore[attr-defined]

    async def make() -> None:
        for number in range(count):
            body = ChannelCreate.model_validate({"type": "telegram", "credentials": {"bot_token": bot_token(number)}})
            async with runtime.database.transaction() as db:
                await service.create(db, runtime.settings, runtime.egress, account, chatbot, body, runtime.database)

    assert app.portal is not None
    app.portal.call(make)


def test_a_thousand_webhook_channels_get_no_poller_task_timer_or_socket_and_a_polling_one_gets_one(
    app: TestClient, issued_keys: list[str], bot_api: TelegramApi
) -> None:
    issued = Db(app).run(lambda session: issue_key(session, "owner@example.com"))
    issued_keys.append(issued.key)
    owner = Api(app, issued.key)
    chatbot = owner.chatbot()["uuid"]
    runtime: Runtime = app.app.state.runtime  # type: ignore[attr-defined]
    pollers = ChannelPollers(runtime.database, runtime.settings, runtime.egress, long_poll_seconds=1)
    assert app.portal is not None
    app.portal.call(pollers.look)
    before = held(app)

    make_channels(app, issued.account.uuid, chatbot, CHANNELS)
    assert len(owner.ok(owner.get(f"/chatbot/{chatbot}/channels"))) == CHANNELS
    for _ in range(3):  # the pollers' looks, as their loop makes them
        app.portal.call(pollers.look)
    after = held(app)
    assert pollers.polling == {}
    assert all(after[what] <= before[what] + SLACK for what in before), (before, after)

    body = {"type": "telegram", "credentials": {"bot_token": TOKEN}, "settings": {"mode": "polling"}}
    polling = owner.ok(owner.post(f"/chatbot/{chatbot}/channel/create", body))
    try:
        app.portal.call(pollers.look)
        assert set(pollers.polling) == {polling["uuid"]}  # the one polling channel, and only it
        assert held(app)["tasks"] == after["tasks"] + 1
    finally:
        app.portal.call(pollers.stop)
    assert bot_api.conflicts == 0
