"""WhatsApp end to end against a Graph API on loopback (tests/support/graph_api.py), both databases: the token
checked when the channel is made and the webhook's verification, signatures refused writing nothing, a message
answered on the customer's number with the read mark and typing meanwhile, a batch of messages and statuses in one
POST (repeats and concurrent repeats answered once, statuses only forward, a failure on the channel's status), a
Brazilian number without its ninth digit in the conversation of the one with it, reply buttons pressed, and the
24-hour window (a template, or the clear refusal). The clock is moved by hand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
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
    OTHER_PHONE_NUMBER_ID,
    PHONE_NUMBER_ID,
    THROTTLED,
    WA_TOKEN,
    GraphApi,
    graph_api,
    signed,
    wa_pressed,
    wa_status,
    wa_text,
    whatsapp_delivery,
)

CUSTOMER = "15551234567"
CREDENTIALS = {"access_token": WA_TOKEN, "app_secret": APP_SECRET, "phone_number_id": PHONE_NUMBER_ID}


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


def whatsapp(api: Api, bot: str, **fields: Any) -> dict[str, Any]:
    body = {"type": "whatsapp", "name": "Shop WhatsApp", "credentials": CREDENTIALS, **fields}
    made: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/channel/create", body))
    return made


def deliver(api: Api, channel: dict[str, Any], body: dict[str, Any], secret: str = APP_SECRET) -> Any:
    raw = json.dumps(body).encode()
    return api.client.post(f"/channels/{channel['uuid']}/inbound", content=raw, headers=signed(raw, secret))


def count(db: Db, model: Any) -> int:
    return int(db.run(lambda s: s.scalar(select(func.count()).select_from(model))))


def texts_to(graph: GraphApi, to: str) -> list[str]:
    return [sent["text"]["body"] for sent in graph.sent() if sent["to"] == to and sent["type"] == "text"]


def test_the_token_is_checked_the_verify_token_shown_and_the_webhook_verified(
    owner: Api, alice: Api, graph: GraphApi, db: Db
) -> None:
    bot = shop(owner)
    made = whatsapp(owner, bot)
    assert graph.gets() == [f"/v23.0/{PHONE_NUMBER_ID}?fields=display_phone_number,verified_name"]
    assert made["credentials"] == {name: "••••" + value[-4:] for name, value in CREDENTIALS.items()}
    assert WA_TOKEN not in str(made) and APP_SECRET not in str(made)
    token = made["verify_token"]
    assert len(token) >= 32 and owner.ok(owner.get(f"/channel/{made['uuid']}"))["verify_token"] == token
    url = f"/channels/{made['uuid']}/inbound"
    query = {"hub.mode": "subscribe", "hub.verify_token": token, "hub.challenge": "1158201444"}
    answered = owner.client.get(url, params=query)
    assert answered.status_code == 200 and answered.text == "1158201444"
    assert answered.headers["content-type"].startswith("text/plain")
    wrong = owner.client.get(url, params={**query, "hub.verify_token": "guess"})
    assert_error(wrong, 403, "verify_token_invalid")
    assert count(db, ChannelEvent) == 0
    # A token Meta refuses: Meta's message, nothing stored.
    other = {**CREDENTIALS, "access_token": "EAAG-expired", "phone_number_id": OTHER_PHONE_NUMBER_ID}
    refused = {"type": "whatsapp", "credentials": other}
    error = assert_error(owner.post(f"/chatbot/{bot}/channel/create", refused), 422, "channel_refused")
    assert "Invalid OAuth access token" in error["error"] and "EAAG-expired" not in error["error"]
    # Meta's ids are digits: anything else never reaches a Graph API path.
    slashed = {"type": "whatsapp", "credentials": {**CREDENTIALS, "phone_number_id": "../me"}}
    invalid = assert_error(owner.post(f"/chatbot/{bot}/channel/create", slashed), 422, "validation_error")
    assert invalid["details"][0]["field"] == "credentials.phone_number_id"
    # One channel per number.
    assert_error(owner.post(f"/chatbot/{bot}/channel/create", {"type": "whatsapp", "credentials": CREDENTIALS}), 409,
                 "channel_bot_in_use")  # fmt: skip
    assert len(owner.ok(owner.get(f"/chatbot/{bot}/channels"))) == 1
    # The suite's own app keeps the default public address, http://localhost:8000: Meta could never deliver there.
    body = {"type": "whatsapp", "credentials": {**CREDENTIALS, "phone_number_id": OTHER_PHONE_NUMBER_ID}}
    plain = alice.post(f"/chatbot/{alice.chatbot()['uuid']}/channel/create", body)
    assert "BOTYARD_PUBLIC_URL" in assert_error(plain, 422, "public_url_required")["error"]


def test_a_message_is_answered_on_the_number_with_the_read_mark_and_its_statuses_recorded(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    made = whatsapp(owner, shop(owner))
    bad = deliver(owner, made, whatsapp_delivery([wa_text("wamid.A1", CUSTOMER, "When are you open?")]), "not-it")
    assert_error(bad, 401, "signature_invalid")
    assert count(db, ChannelEvent) == 0
    accepted = deliver(owner, made, whatsapp_delivery([wa_text("wamid.A1", CUSTOMER, "When are you open?")]))
    assert accepted.status_code == 200 and accepted.json() == {"ok": True}
    run_channel_jobs(owner.client, clock)
    [reply] = texts_to(graph, CUSTOMER)
    assert "nine to five" in reply
    read = [post for post in graph.posts() if post.get("status") == "read"]
    assert read == [{"messaging_product": "whatsapp", "status": "read", "message_id": "wamid.A1",
                     "typing_indicator": {"type": "text"}}]  # fmt: skip
    [session] = db.run(lambda s: s.scalars(select(ChatSession).where(ChatSession.channel_uuid == made["uuid"]))).all()
    assert (session.channel_user, session.channel_user_name) == ("+15551234567", "Ada")
    [receipt] = db.run(lambda s: s.scalars(select(ChannelReceipt))).all()
    wamid = graph.sent()[0]["id"]
    assert receipt.provider_id == wamid and receipt.status == "sent" and receipt.reply_uuid is not None
    # Statuses in one POST, then a late "delivered": read stays read.
    statuses = [wa_status(wamid, "delivered", CUSTOMER), wa_status(wamid, "read", CUSTOMER)]
    assert deliver(owner, made, whatsapp_delivery(statuses=statuses)).json() == {"ok": True}
    deliver(owner, made, whatsapp_delivery(statuses=[wa_status(wamid, "delivered", CUSTOMER)]))
    assert db.run(lambda s: s.scalar(select(ChannelReceipt.status))) == "read"


def test_a_batch_is_each_message_once_however_often_and_concurrently_it_comes(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    made = whatsapp(owner, shop(owner))
    other = "447700900123"
    batch = whatsapp_delivery(
        [wa_text("wamid.B1", CUSTOMER, "When are you open?"), wa_text("wamid.B2", other, "When are you open?")],
        names={other: "Grace"},
    )
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: deliver(owner, made, batch), range(6)))
    assert all(answer.status_code == 200 for answer in answers)
    assert sum(answer.json() == {"ok": True} for answer in answers) >= 1
    assert count(db, ChannelEvent) == 2
    run_channel_jobs(owner.client, clock)
    assert len(texts_to(graph, CUSTOMER)) == 1 and len(texts_to(graph, other)) == 1
    assert deliver(owner, made, batch).json() == {"ok": True, "duplicate": True}
    # Another number of the same Meta app is not this channel's.
    foreign = whatsapp_delivery([wa_text("wamid.B3", CUSTOMER, "Hi")], phone_number_id="999")
    assert deliver(owner, made, foreign).json() == {"ok": True}
    assert count(db, ChannelEvent) == 2


def test_a_failed_status_is_the_channels_last_error(owner: Api, graph: GraphApi, clock: ManualClock, db: Db) -> None:
    made = whatsapp(owner, shop(owner))
    deliver(owner, made, whatsapp_delivery([wa_text("wamid.F1", CUSTOMER, "When are you open?")]))
    run_channel_jobs(owner.client, clock)
    wamid = graph.sent()[0]["id"]
    failure = [{"code": 131026, "title": "Message undeliverable", "message": "Message undeliverable"}]
    deliver(owner, made, whatsapp_delivery(statuses=[wa_status(wamid, "failed", CUSTOMER, failure)]))
    status = owner.ok(owner.get(f"/channel/{made['uuid']}"))["status"]
    assert status["last_error"] == "WhatsApp #131026: Message undeliverable"
    reply = db.run(lambda s: s.scalars(select(ChannelReply))).one()
    assert reply.last_error == "WhatsApp #131026: Message undeliverable"
    assert db.run(lambda s: s.scalar(select(ChannelReceipt.status))) == "failed"


def test_a_brazilian_number_without_its_ninth_digit_is_the_same_customer(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    made = whatsapp(owner, shop(owner))
    deliver(owner, made, whatsapp_delivery([wa_text("wamid.BR1", "5511987654321", "When are you open?")]))
    run_channel_jobs(owner.client, clock)
    clock.now += timedelta(minutes=5)
    deliver(owner, made, whatsapp_delivery([wa_text("wamid.BR2", "551187654321", "And on Saturdays?")]))
    run_channel_jobs(owner.client, clock)
    [session] = db.run(lambda s: s.scalars(select(ChatSession).where(ChatSession.channel_uuid == made["uuid"]))).all()
    assert session.channel_user == "+5511987654321"
    assert len(texts_to(graph, "5511987654321")) == 1 and len(texts_to(graph, "551187654321")) == 1


def desk(api: Api, choices: list[str]) -> str:
    bot: str = api.chatbot("Desk")["uuid"]
    disable_default(api, bot)
    agent(api, bot, "pre-canned", "Front desk", "Everything", default_message="How can we help?", choices=choices)
    return bot


def test_choices_are_reply_buttons_or_a_list_and_a_press_asks_the_choice(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    made = whatsapp(owner, desk(owner, ["Opening hours", "Book an appointment"]))
    deliver(owner, made, whatsapp_delivery([wa_text("wamid.C1", CUSTOMER, "Hi")]))
    run_channel_jobs(owner.client, clock)
    [sent] = graph.sent()
    assert sent["type"] == "interactive" and sent["interactive"]["type"] == "button"
    assert sent["interactive"]["body"] == {"text": "How can we help?"}
    buttons = sent["interactive"]["action"]["buttons"]
    assert [button["reply"]["title"] for button in buttons] == ["Opening hours", "Book an appointment"]
    pressed = wa_pressed("wamid.C2", CUSTOMER, buttons[1]["reply"]["id"], "Book an appointment")
    deliver(owner, made, whatsapp_delivery([pressed]))
    run_channel_jobs(owner.client, clock)
    [session] = db.run(lambda s: s.scalars(select(ChatSession).where(ChatSession.channel_uuid == made["uuid"]))).all()
    queries = [message["query"] for message in owner.ok(owner.get(f"/session/{session.uuid}/messages"))]
    assert queries == ["Hi", "Book an appointment"]


TEMPLATE = {"name": "follow_up", "language": "en_US", "fill": "text"}


def test_outside_the_window_a_reply_goes_as_the_template_or_fails_naming_the_setting(
    owner: Api, graph: GraphApi, clock: ManualClock, db: Db
) -> None:
    made = whatsapp(owner, shop(owner), settings={"template": TEMPLATE})
    assert made["settings"]["template"] == TEMPLATE
    deliver(owner, made, whatsapp_delivery([wa_text("wamid.W1", CUSTOMER, "When are you open?")]))
    clock.now += timedelta(hours=25)  # the answer is made a day later: the window has closed
    run_channel_jobs(owner.client, clock)
    [sent] = graph.sent()
    assert sent["type"] == "template" and sent["template"]["name"] == "follow_up"
    assert sent["template"]["language"] == {"code": "en_US"}
    [parameter] = sent["template"]["components"][0]["parameters"]
    assert "nine to five" in parameter["text"] and "\n" not in parameter["text"]
    assert db.run(lambda s: s.scalars(select(ChannelReply))).one().details == {"template": "follow_up"}
    # Without a template, the reply is refused before Meta is asked, saying what to configure.
    owner.ok(owner.post(f"/channel/{made['uuid']}/update", {"settings": {"burst_seconds": 1.0}}))
    deliver(owner, made, whatsapp_delivery([wa_text("wamid.W2", CUSTOMER, "And on Saturdays?")]))
    clock.now += timedelta(hours=25)
    run_channel_jobs(owner.client, clock)
    assert len(graph.sent()) == 1
    failed = db.run(lambda s: s.scalars(select(ChannelReply).where(ChannelReply.state == "failed"))).one()
    assert "settings.template" in failed.last_error and failed.attempts == 1
    assert "settings.template" in owner.ok(owner.get(f"/channel/{made['uuid']}"))["status"]["last_error"]


def test_metas_own_window_error_and_its_throttling(owner: Api, graph: GraphApi, clock: ManualClock, db: Db) -> None:
    made = whatsapp(owner, shop(owner))
    graph.fail_next(THROTTLED)  # too many messages: tried again
    deliver(owner, made, whatsapp_delivery([wa_text("wamid.M1", CUSTOMER, "When are you open?")]))
    run_channel_jobs(owner.client, clock)
    assert len(texts_to(graph, CUSTOMER)) == 1
    graph.close_window(CUSTOMER)  # Meta knows better (the service's clock, say): 131047, given up at once
    deliver(owner, made, whatsapp_delivery([wa_text("wamid.M2", CUSTOMER, "And on Saturdays?")]))
    run_channel_jobs(owner.client, clock)
    failed = db.run(lambda s: s.scalars(select(ChannelReply).where(ChannelReply.state == "failed"))).one()
    assert "#131047" in failed.last_error and failed.attempts == 1


def test_the_test_message_goes_to_the_number(owner: Api, graph: GraphApi) -> None:
    made = whatsapp(owner, shop(owner))
    sent = owner.ok(owner.post(f"/channel/{made['uuid']}/test", {"to": CUSTOMER}))
    assert sent == {"sent": True, "to": CUSTOMER, "parts": 1}
    assert "*Shop WhatsApp*" in texts_to(graph, CUSTOMER)[0]  # WhatsApp's bold
    graph.close_window(CUSTOMER)
    refused = assert_error(owner.post(f"/channel/{made['uuid']}/test", {"to": CUSTOMER}), 422, "channel_send_failed")
    assert "#131047" in refused["error"] and "24 hours" in refused["error"]
