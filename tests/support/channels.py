"""Channel tests' helpers: an app of its own that calls the fake providers, a shop chatbot and its Telegram channel,
deliveries as Telegram makes them, and the channel jobs run on a clock the test moves (a reply due in 30 s is sent
without waiting 30 s)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.channels.answering import ChannelAnswerer
from botyard.channels.relay import ChannelRelayer
from botyard.channels.sending import ChannelSender
from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.jobs.kinds import JobKind
from botyard.jobs.runner import JobRunner
from botyard.main import create_app
from botyard.models import Job, JobStatus
from botyard.runtime import Runtime
from tests.support.api import Api
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.jobs import FAST, process
from tests.support.telegram_api import TOKEN

KINDS = (JobKind.CHANNEL_ANSWER, JobKind.CHANNEL_SEND, JobKind.CHANNEL_RELAY)
PUBLIC_URL = "https://botyard.example.test"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
SHOP_QUESTION = "When is the shop open?"
SHOP_ANSWER = "The shop is open from nine to five, Monday to Friday."


@contextmanager
def owner_app(
    settings: Settings, fake_dns: FakeDns, clock: ManualClock, issued_keys: list[str], **urls: str
) -> Iterator[Api]:
    """The owner of an account on an app whose public address is https and whose providers are at `urls`
    (`telegram_api_url`, `slack_api_url`: the fakes on loopback), on the suite's database."""
    patched = settings.model_copy(update={"public_url": PUBLIC_URL, **urls})
    with TestClient(create_app(patched, resolver=fake_dns, clock=clock), raise_server_exceptions=False) as own:
        issued = Db(own).run(lambda session: issue_key(session, "owner@example.com"))
        issued_keys.append(issued.key)
        yield Api(own, issued.key)


def shop(api: Api) -> str:
    """A chatbot that knows when the shop is open."""
    bot: str = api.chatbot()["uuid"]
    api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": SHOP_QUESTION, "answer": SHOP_ANSWER}))
    process(api.client)
    return bot


def connect(api: Api, bot: str, **fields: Any) -> dict[str, Any]:
    """The chatbot's Telegram channel, with the fake Bot API's token."""
    body = {"type": "telegram", "name": "Shop bot", "credentials": {"bot_token": TOKEN}, **fields}
    channel: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/channel/create", body))
    return channel


def deliver(api: Api, channel: dict[str, Any], body: Any, secret: str | None) -> Any:
    """A delivery to the channel's inbound URL as Telegram makes it (with the webhook's secret token, when given)."""
    headers = {} if secret is None else {SECRET_HEADER: secret}
    return api.client.post(f"/channels/{channel['uuid']}/inbound", json=body, headers=headers)


def run_channel_jobs(client: TestClient, clock: ManualClock, rounds: int = 200, until: datetime | None = None) -> None:
    """Run the channel jobs as they fall due, moving `clock` to the next due one whenever none is due now, until none
    is queued (at most `rounds` moves), or, with `until`, until the next one is due after it."""
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    handlers = [
        ChannelAnswerer(runtime.answers, runtime.settings, runtime.egress),
        ChannelSender(runtime.settings, runtime.egress, clock),
        ChannelRelayer(),
    ]
    runner = JobRunner(runtime.database, handlers, replace(FAST, clock=clock))

    async def run() -> None:
        for _ in range(rounds):
            while await runner.run_once():
                pass
            async with runtime.database.transaction(write=False) as session:
                statement = select(func.min(Job.run_after)).where(Job.status == JobStatus.QUEUED, Job.kind.in_(KINDS))
                due: datetime | None = (await session.execute(statement)).scalar_one()
            if due is None or (until is not None and due > until):
                return
            if due > clock.now:
                clock.now = due
        raise AssertionError("the channel jobs did not come to an end")

    assert client.portal is not None
    client.portal.call(run)


def signed_headers(secret: str, event_id: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    """The headers a generic channel's sender computes from the specification (not with the service's code)."""
    stamp = int(time.time()) if timestamp is None else timestamp
    key = base64.b64decode(secret.removeprefix("whsec_"))
    mac = hmac.new(key, f"{event_id}.{stamp}.".encode() + body, hashlib.sha256).digest()
    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(stamp),
        "webhook-signature": "v1," + base64.b64encode(mac).decode(),
        "content-type": "application/json",
    }
