"""Telegram long polling across two real `botyard serve` processes on one database (both backends), against the
loopback Bot API: the process that polls the bot is killed with SIGKILL the moment Telegram has given it updates
(before it could store them or answer); the other process takes the bot over once the lease has run out, from the
stored offset, and every update is answered exactly once, with never two `getUpdates` of the bot at once.

Every wait is for something the test can see (the fake's sends, the rows stored), with a generous deadline."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.config import Settings
from botyard.db.session import Database
from botyard.models import Channel, ChannelEvent, ChannelReply, ReplyState
from tests.support.database import backend_params, fresh_settings
from tests.support.servers import Server
from tests.support.telegram_api import TOKEN, TelegramApi, telegram_api, update
from tests.support.waiting import wait_for

pytestmark = pytest.mark.timeout(900)  # two cold starts of `botyard serve` and a takeover, on a busy machine

LEASE_SECONDS = 6
"""Short, so that the takeover comes soon; its long polls wait 2 s (a third of it)."""
TAKEOVER = 240.0
"""A generous bound on the takeover: the lease, a look (5 s), the job lease, the answers, on a loaded machine."""


def read(settings: Settings, work: Callable[[AsyncSession], Any]) -> Any:
    """One read of the shared database, from this process (the servers are other processes)."""

    async def go() -> Any:
        database = Database.from_settings(settings)
        try:
            async with database.transaction(write=False) as session:
                return await work(session)
        finally:
            await database.dispose()

    return asyncio.run(go())


def holder(settings: Settings) -> str | None:
    return read(settings, lambda s: s.scalar(select(Channel.poll_holder)))  # type: ignore[no-any-return]


def sent_replies(settings: Settings) -> int:
    statement = select(func.count()).select_from(ChannelReply).where(ChannelReply.state == ReplyState.SENT)
    return int(read(settings, lambda s: s.scalar(statement)))


def events(settings: Settings) -> int:
    return int(read(settings, lambda s: s.scalar(select(func.count()).select_from(ChannelEvent))))


class Owner:
    def __init__(self, server: Server, key: str) -> None:
        self.api = f"{server.base}/api/v1"
        self.headers = {"Authorization": f"Bearer {key}"}

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        with httpx.Client(timeout=60) as client:
            response = client.request(method, f"{self.api}{path}", headers=self.headers, json=body)
        assert response.status_code == 200, response.text
        return response.json()

    def polling_channel(self) -> str:
        bot = self.call("POST", "/chatbot/create", {"name": "Shop"})["uuid"]
        qa = {"question": "When is the shop open?", "answer": "The shop is open from nine to five, Monday to Friday."}
        self.call("POST", f"/chatbot/{bot}/data-source/qa", qa)
        wait_for(
            lambda: all(s["status"] == "success" for s in self.call("GET", f"/chatbot/{bot}/data-sources")),
            120,
            "the question and answer stored",
            every=0.2,
        )
        body = {"type": "telegram", "credentials": {"bot_token": TOKEN}, "settings": {"mode": "polling"}}
        uuid: str = self.call("POST", f"/chatbot/{bot}/channel/create", body)["uuid"]
        return uuid


def servers(settings: Settings, bot_api: TelegramApi) -> tuple[Server, Server]:
    made = Server(settings), Server(settings)
    for server in made:
        server.env |= {
            "BOTYARD_TELEGRAM_API_URL": bot_api.url,
            "BOTYARD_CHANNEL_POLL_LEASE_SECONDS": str(LEASE_SECONDS),
        }
    return made


def questions(*users: int) -> list[dict[str, Any]]:
    return [update(100 + user, "When are you open?", user=user) for user in users]


@pytest.mark.parametrize("backend", backend_params())
def test_a_killed_pollers_bot_is_taken_over_by_the_other_process_and_each_update_answered_once(
    backend: str, tmp_path: Path
) -> None:
    with telegram_api() as bot_api, fresh_settings(backend, tmp_path) as settings:
        first, second = servers(settings, bot_api)
        first.start()
        try:
            key = first.key()
            owner = Owner(first, key)
            channel = owner.polling_channel()
            wait_for(lambda: bot_api.calls("getUpdates"), TAKEOVER, "the first process polling the bot")
            polling = holder(settings)
            second.start()
            bot_api.queue_updates(*questions(1, 2, 3))
            wait_for(lambda: sent_replies(settings) == 3, TAKEOVER, "the first three answers sent and recorded")
            assert holder(settings) == polling  # the first process still polls: the second one waited

            def kill_the_poller(ids: list[int]) -> None:
                if 104 in ids:  # as Telegram gives it the next updates, before it can read them
                    bot_api.on_given(None)
                    assert first.process is not None
                    os.kill(first.process.pid, signal.SIGKILL)

            bot_api.on_given(kill_the_poller)
            bot_api.queue_updates(*questions(4, 5, 6))
            wait_for(lambda: bot_api.sends() >= 6, TAKEOVER, "the other process answering the next three")
            wait_for(lambda: sent_replies(settings) == 6, TAKEOVER, "the six answers recorded as sent")
            assert first.process is not None and first.process.wait(timeout=30) == -signal.SIGKILL
            taken = holder(settings)
            assert taken is not None and taken != polling  # the second process holds the bot now
            assert sorted(int(sent.chat_id) for sent in bot_api.sent()) == [1, 2, 3, 4, 5, 6]  # each exactly once
            assert all("nine to five" in sent.text for sent in bot_api.sent())
            assert events(settings) == 6  # each update stored once
            assert bot_api.conflicts == 0  # never two getUpdates of the bot at once
            assert {104, 105, 106} <= set(bot_api.given())
            assert Owner(second, key).call("GET", f"/channel/{channel}")["status"]["last_error"] == ""
        finally:
            second.stop()
            first.stop()
