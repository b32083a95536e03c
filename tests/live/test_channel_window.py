"""Meta's 24-hour window in live chat, both databases, against the Graph API on loopback: the Inbox shows each
conversation's channel and when its window closes; an operator's reply within it goes free-form; after it, on
WhatsApp it is refused (422 `channel_window_closed`, nothing written or sent) until the channel has a template, then
goes as the template; on Messenger it goes tagged `HUMAN_AGENT` within 7 days. The customer wrote 30 hours ago: the
app's clock starts there, and the operator's reply is made now."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import ChatSession, Message
from tests.support.api import Api, assert_error
from tests.support.channels import owner_app, run_channel_jobs, shop
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.graph_api import (
    APP_SECRET,
    PAGE_ID,
    PAGE_TOKEN,
    PHONE_NUMBER_ID,
    WA_TOKEN,
    GraphApi,
    graph_api,
    m_text,
    messaging_delivery,
    signed,
    wa_text,
    whatsapp_delivery,
)

CUSTOMER = "15551234567"
PSID = "6789012345678901"


@pytest.fixture
def graph() -> Iterator[GraphApi]:
    with graph_api() as running:
        yield running


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime.now(UTC) - timedelta(hours=30))


@pytest.fixture
def owner(
    settings: Settings,
    client: TestClient,
    fake_dns: FakeDns,
    issued_keys: list[str],
    clock: ManualClock,
    graph: GraphApi,
) -> Iterator[Api]:
    with owner_app(settings, fake_dns, clock, issued_keys, graph_api_url=graph.url) as own:
        yield own


def deliver(api: Api, channel: dict[str, Any], body: dict[str, Any]) -> None:
    raw = json.dumps(body).encode()
    answer = api.client.post(f"/channels/{channel['uuid']}/inbound", content=raw, headers=signed(raw, APP_SECRET))
    assert answer.status_code == 200


def live_session(api: Api, db: Db, channel: dict[str, Any], clock: ManualClock) -> str:
    """The customer's conversation, answered by the bot 30 hours ago, taken over by an operator now."""
    run_channel_jobs(api.client, clock)
    [session] = db.run(
        lambda s: s.scalars(select(ChatSession.uuid).where(ChatSession.channel_uuid == channel["uuid"]))
    ).all()
    api.ok(api.post(f"/session/{session}/live-chat/start"))
    clock.now = datetime.now(UTC)
    run_channel_jobs(api.client, clock)
    return str(session)


def test_on_whatsapp_the_inbox_shows_the_window_and_a_reply_after_it_needs_the_template(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    bot = shop(owner)
    credentials = {"access_token": WA_TOKEN, "app_secret": APP_SECRET, "phone_number_id": PHONE_NUMBER_ID}
    channel = owner.ok(owner.post(f"/chatbot/{bot}/channel/create", {"type": "whatsapp", "credentials": credentials}))
    asked_at = clock.now
    deliver(owner, channel, whatsapp_delivery([wa_text("wamid.L1", CUSTOMER, "When are you open?")]))
    session = live_session(owner, db, channel, clock)
    [entry] = owner.ok(owner.get(f"/chatbot/{bot}/inbox"))["sessions"]
    assert entry["channel_type"] == "whatsapp"
    closes = datetime.fromisoformat(entry["channel_window_closes_at"].replace("Z", "+00:00"))
    assert abs(closes - (asked_at + timedelta(hours=24))) < timedelta(minutes=5)
    rows = db.run(lambda s: s.scalar(select(func.count()).select_from(Message)))
    sent = len(graph.sent())
    refused = assert_error(
        owner.post(f"/session/{session}/live-chat/message", {"text": "Sorry for the wait!"}),
        422,
        "channel_window_closed",
    )
    assert "settings.template" in refused["error"]
    run_channel_jobs(owner.client, clock)
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(Message))) == rows and len(graph.sent()) == sent
    template = {"name": "follow_up", "language": "en_US"}
    owner.ok(owner.post(f"/channel/{channel['uuid']}/update", {"settings": {"template": template}}))
    owner.ok(owner.post(f"/session/{session}/live-chat/message", {"text": "Sorry for the wait!"}))
    run_channel_jobs(owner.client, clock)
    last = graph.sent()[-1]
    assert last["type"] == "template" and last["template"]["name"] == "follow_up"
    assert last["template"]["components"][0]["parameters"][0]["text"] == "Sorry for the wait!"


def test_on_messenger_an_operators_reply_after_the_window_goes_tagged_human_agent(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    bot = shop(owner)
    credentials = {"access_token": PAGE_TOKEN, "app_secret": APP_SECRET, "page_id": PAGE_ID}
    channel = owner.ok(owner.post(f"/chatbot/{bot}/channel/create", {"type": "messenger", "credentials": credentials}))
    deliver(owner, channel, messaging_delivery("page", PAGE_ID, m_text("m_L1", PSID, PAGE_ID, "When are you open?")))
    session = live_session(owner, db, channel, clock)
    graph.close_window(PSID)  # Meta agrees: only a tagged message goes now
    owner.ok(owner.post(f"/session/{session}/live-chat/message", {"text": "Sorry for the wait!"}))
    run_channel_jobs(owner.client, clock)
    last = graph.sent()[-1]
    assert last["messaging_type"] == "MESSAGE_TAG" and last["tag"] == "HUMAN_AGENT"
    assert last["message"]["text"] == "Sorry for the wait!"
