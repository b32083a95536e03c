"""Messenger and Instagram end to end against a Graph API on loopback (tests/support/graph_api.py), both databases:
the page token checked (and that it is the page's), a message answered to the sender's page-scoped id with
`mark_seen` and `typing_on` meanwhile, our own echoes ignored, signatures refused writing nothing, quick replies
and postbacks pressed, delivery and read statuses recorded, and a bot's reply refused outside the 24-hour window."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import ChannelEvent, ChannelReceipt, ChannelReply, ChatSession
from tests.support.agents import agent, disable_default
from tests.support.api import Api, assert_error
from tests.support.channels import owner_app, run_channel_jobs, shop
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.graph_api import (
    APP_SECRET,
    IG_ACCOUNT_ID,
    IG_TOKEN,
    PAGE_ID,
    PAGE_TOKEN,
    GraphApi,
    graph_api,
    m_text,
    messaging_delivery,
    signed,
)

PSID = "6789012345678901"
MESSENGER = {"access_token": PAGE_TOKEN, "app_secret": APP_SECRET, "page_id": PAGE_ID}
INSTAGRAM = {"access_token": IG_TOKEN, "app_secret": APP_SECRET, "instagram_account_id": IG_ACCOUNT_ID}


@pytest.fixture
def graph() -> Iterator[GraphApi]:
    with graph_api() as running:
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
    graph: GraphApi,
) -> Iterator[Api]:
    with owner_app(settings, fake_dns, clock, issued_keys, graph_api_url=graph.url) as own:
        yield own


def made(api: Api, bot: str, kind: str, credentials: dict[str, str]) -> dict[str, Any]:
    body = {"type": kind, "credentials": credentials}
    channel: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/channel/create", body))
    return channel


def deliver(api: Api, channel: dict[str, Any], body: dict[str, Any], secret: str = APP_SECRET) -> Any:
    raw = json.dumps(body).encode()
    return api.client.post(f"/channels/{channel['uuid']}/inbound", content=raw, headers=signed(raw, secret))


def messages_to(graph: GraphApi, psid: str) -> list[dict[str, Any]]:
    return [sent for sent in graph.sent() if sent["recipient"]["id"] == psid]


def test_a_messenger_message_is_answered_with_seen_and_typing_and_its_statuses_recorded(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    bot = shop(owner)
    wrong_page = {**MESSENGER, "page_id": "999"}
    body = {"type": "messenger", "credentials": wrong_page}
    refused = assert_error(owner.post(f"/chatbot/{bot}/channel/create", body), 422, "channel_refused")
    assert "page_id" in refused["error"]
    channel = made(owner, bot, "messenger", MESSENGER)
    assert channel["verify_token"] and PAGE_TOKEN not in str(channel)
    question = messaging_delivery("page", PAGE_ID, m_text("m_Q1", PSID, PAGE_ID, "When are you open?"))
    assert_error(deliver(owner, channel, question, "forged"), 401, "signature_invalid")
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(ChannelEvent))) == 0
    assert deliver(owner, channel, question).json() == {"ok": True}
    assert deliver(owner, channel, question).json() == {"ok": True, "duplicate": True}
    echo = m_text("m_E1", PAGE_ID, PSID, "Our own words", is_echo=True)
    deliver(owner, channel, messaging_delivery("page", PAGE_ID, echo))
    run_channel_jobs(owner.client, clock)
    [reply] = messages_to(graph, PSID)
    assert reply["messaging_type"] == "RESPONSE" and "nine to five" in reply["message"]["text"]
    actions = [post["sender_action"] for post in graph.posts() if "sender_action" in post]
    assert actions[:2] == ["mark_seen", "typing_on"]
    mid = reply["id"]
    delivered = {"sender": {"id": PSID}, "recipient": {"id": PAGE_ID}, "delivery": {"mids": [mid], "watermark": 1}}
    deliver(owner, channel, messaging_delivery("page", PAGE_ID, delivered))
    receipt = db.run(lambda s: s.scalars(select(ChannelReceipt))).one()
    assert (receipt.provider_id, receipt.status) == (mid, "delivered")


def desk(api: Api, choices: list[str]) -> str:
    bot: str = api.chatbot("Desk")["uuid"]
    disable_default(api, bot)
    agent(api, bot, "pre-canned", "Front desk", "Everything", default_message="How can we help?", choices=choices)
    return bot


def test_instagram_quick_replies_and_a_postback_ask_their_choices(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    channel = made(owner, desk(owner, ["Opening hours", "Book a visit"]), "instagram", INSTAGRAM)
    deliver(owner, channel, messaging_delivery("instagram", IG_ACCOUNT_ID, m_text("m_I1", PSID, IG_ACCOUNT_ID, "Hi")))
    run_channel_jobs(owner.client, clock)
    [sent] = messages_to(graph, PSID)
    assert sent["message"]["text"] == "How can we help?"
    quick = sent["message"]["quick_replies"]
    assert [reply["title"] for reply in quick] == ["Opening hours", "Book a visit"]
    pressed = m_text("m_I2", PSID, IG_ACCOUNT_ID, "Book a visit", quick_reply={"payload": quick[1]["payload"]})
    deliver(owner, channel, messaging_delivery("instagram", IG_ACCOUNT_ID, pressed))
    run_channel_jobs(owner.client, clock)
    postback = {"sender": {"id": PSID}, "recipient": {"id": IG_ACCOUNT_ID}, "timestamp": 1764680009000,
                "postback": {"mid": "m_I3", "title": "Opening hours", "payload": quick[0]["payload"]}}  # fmt: skip
    deliver(owner, channel, messaging_delivery("instagram", IG_ACCOUNT_ID, postback))
    run_channel_jobs(owner.client, clock)
    [session] = db.run(
        lambda s: s.scalars(select(ChatSession).where(ChatSession.channel_uuid == channel["uuid"]))
    ).all()
    queries = [message["query"] for message in owner.ok(owner.get(f"/session/{session.uuid}/messages"))]
    assert queries == ["Hi", "Book a visit", "Opening hours"]


def test_a_bots_reply_outside_the_window_is_refused_before_meta_is_asked(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    channel = made(owner, shop(owner), "messenger", MESSENGER)
    deliver(owner, channel, messaging_delivery("page", PAGE_ID, m_text("m_W1", PSID, PAGE_ID, "When are you open?")))
    clock.now += timedelta(hours=25)
    run_channel_jobs(owner.client, clock)
    assert graph.sent() == []
    failed = db.run(lambda s: s.scalars(select(ChannelReply))).one()
    assert failed.state == "failed" and "HUMAN_AGENT" in failed.last_error and "24 hours" in failed.last_error
