"""Choices as buttons on every channel, end to end on both databases, against the fake providers on loopback: the
offer of a person reaches Telegram as an inline keyboard and Slack as Block Kit buttons, and its press (answered once
on Telegram however often it is delivered; signed on Slack, an unsigned one refused storing nothing) is the customer's
message that reaches the hand-off; a pre-canned agent's choices reach the generic channel as `buttons`, whose
`button` event asks the choice; choices a channel cannot show go as numbered lines; a token that is not one of the
channel's choices asks nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import ChannelEvent, ChatSession
from tests.support.agents import PERSON, agent, disable_default
from tests.support.api import Api, assert_error
from tests.support.channels import owner_app, run_channel_jobs, signed_headers
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.jobs import process
from tests.support.slack_api import (
    BOT_TOKEN,
    SIGNING_SECRET,
    SlackApi,
    block_actions,
    buttons_of,
    event_callback,
    signed_form,
    signed_request,
    slack_api,
)
from tests.support.sources import upload
from tests.support.telegram_api import TOKEN, TelegramApi, pressed, telegram_api, update
from tests.support.webhook_receiver import Receiver, receiver

CLINIC = b"""# Discounts

Patients over 65 get a senior discount of 10 percent on every treatment at our Harbour Street clinic.
Children under 12 are treated free of charge when they come with a parent who is a patient.

# Opening hours

The Harbour Street clinic is open Monday to Friday from 8 am to 6 pm.
"""
UNSURE = "Is there a student discount?"
OFFER = "If you'd like, I can put you in touch with a person."
HANDED_OFF = "I have let our team know. A person will join this conversation shortly."
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@pytest.fixture
def bot_api() -> Iterator[TelegramApi]:
    with telegram_api() as running:
        yield running


@pytest.fixture
def workspace() -> Iterator[SlackApi]:
    with slack_api() as running:
        yield running


@pytest.fixture
def callback() -> Iterator[Receiver]:
    with receiver() as running:
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
    workspace: SlackApi,
) -> Iterator[Api]:
    urls = {"telegram_api_url": bot_api.url, "slack_api_url": workspace.url}
    with owner_app(settings, fake_dns, clock, issued_keys, **urls) as own:
        yield own


def clinic_with_hand_off(api: Api) -> str:
    """A chatbot whose knowledge answers about discounts, with a hand-off agent: a student discount is unsure."""
    bot: str = api.chatbot("Clinic")["uuid"]
    upload(api, bot, "clinic.md", CLINIC)
    process(api.client)
    agent(api, bot, "human-escalation", "Human hand-off", PERSON)
    return bot


def desk(api: Api, choices: list[str]) -> str:
    """A chatbot whose only agent is a pre-canned one with `choices`."""
    bot: str = api.chatbot("Desk")["uuid"]
    disable_default(api, bot)
    agent(api, bot, "pre-canned", "Front desk", "Everything", default_message="How can we help?", choices=choices)
    return bot


def channel(api: Api, bot: str, type_: str, credentials: dict[str, str]) -> dict[str, Any]:
    made: dict[str, Any] = api.ok(
        api.post(f"/chatbot/{bot}/channel/create", {"type": type_, "credentials": credentials})
    )
    return made


def inbound(api: Api, made: dict[str, Any], raw: bytes, headers: dict[str, str]) -> Any:
    return api.client.post(f"/channels/{made['uuid']}/inbound", content=raw, headers=headers)


def telegram(api: Api, made: dict[str, Any], body: dict[str, Any], secret: str) -> Any:
    return inbound(api, made, json.dumps(body).encode(), {SECRET_HEADER: secret, "Content-Type": "application/json"})


def generic(api: Api, made: dict[str, Any], secret: str, event: dict[str, Any]) -> Any:
    raw = json.dumps(event).encode()
    return inbound(api, made, raw, signed_headers(secret, event["id"], raw))


def replies(callback: Receiver) -> list[dict[str, Any]]:
    """The `message` events the generic channel's callback received (not its `typing` events)."""
    return [received.event for received in callback.received if received.event["type"] == "message"]


def session_of(db: Db, channel_uuid: str) -> ChatSession:
    [found] = db.run(lambda s: s.scalars(select(ChatSession).where(ChatSession.channel_uuid == channel_uuid))).all()
    return found


def events(db: Db) -> int:
    return int(db.run(lambda s: s.scalar(select(func.count()).select_from(ChannelEvent))))


def test_the_offer_of_a_person_is_a_telegram_button_answered_once_that_hands_off(
    owner: Api, bot_api: TelegramApi, clock: ManualClock, db: Db
) -> None:
    made = channel(owner, clinic_with_hand_off(owner), "telegram", {"bot_token": TOKEN})
    secret = bot_api.webhook["secret_token"]
    assert "callback_query" in bot_api.webhook["allowed_updates"]  # else Telegram never delivers a press
    telegram(owner, made, update(1001, UNSURE), secret)
    run_channel_jobs(owner.client, clock)
    [offer] = bot_api.sent()
    assert offer.text.endswith(OFFER)
    [[button]] = offer.keyboard
    assert button["text"] == "Talk to a person"
    assert len(button["callback_data"].encode()) <= 64 and "person" not in button["callback_data"]
    session = session_of(db, made["uuid"])
    [stored] = owner.ok(owner.get(f"/session/{session.uuid}/messages"))
    assert json.loads(stored["meta_json"])["choices"] == ["Talk to a person"]
    # Telegram delivers the press, then again (no 200 in time): answered once, asked once.
    press = pressed(1002, button["callback_data"], query_id="4382bfdwdsb323b2d9")
    assert telegram(owner, made, press, secret).json() == {"ok": True}
    assert telegram(owner, made, press, secret).json() == {"ok": True, "duplicate": True}
    run_channel_jobs(owner.client, clock)
    assert bot_api.calls("answerCallbackQuery") == [{"callback_query_id": "4382bfdwdsb323b2d9"}]
    handed = bot_api.sent()[1:]
    assert [(sent.text, sent.keyboard) for sent in handed] == [(HANDED_OFF, [])]
    queries = [message["query"] for message in owner.ok(owner.get(f"/session/{session.uuid}/messages"))]
    assert queries == [UNSURE, "Talk to a person"]
    assert session_of(db, made["uuid"]).human_requested is True


def test_the_offer_is_a_slack_button_whose_signed_press_hands_off_and_an_unsigned_one_writes_nothing(
    owner: Api, workspace: SlackApi, clock: ManualClock, db: Db
) -> None:
    made = channel(
        owner, clinic_with_hand_off(owner), "slack", {"bot_token": BOT_TOKEN, "signing_secret": SIGNING_SECRET}
    )
    inbound(owner, made, *signed_request(event_callback("Ev01", UNSURE)))
    run_channel_jobs(owner.client, clock)
    [offer] = workspace.posted()
    section, actions = offer["blocks"]
    assert section["type"] == "section" and section["text"]["type"] == "mrkdwn"
    assert section["text"]["text"].endswith(OFFER) and offer["text"] == section["text"]["text"]
    [button] = buttons_of(offer)
    assert actions["type"] == "actions" and button["text"] == {
        "type": "plain_text",
        "text": "Talk to a person",
        "emoji": True,
    }
    payload = block_actions(button, trigger_id="13345224609.738474920.8088930838d88f008e0")
    unsigned = owner.client.post(
        f"/channels/{made['uuid']}/inbound",
        content=signed_form(payload)[0],
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_error(unsigned, 401, "signature_invalid")
    forged = inbound(owner, made, *signed_form(payload, secret="another-apps-signing-secret"))
    assert_error(forged, 401, "signature_invalid")
    assert events(db) == 1  # only the question: neither request stored anything
    assert inbound(owner, made, *signed_form(payload)).json() == {"ok": True}
    assert inbound(owner, made, *signed_form(payload)).json() == {"ok": True, "duplicate": True}
    run_channel_jobs(owner.client, clock)
    [_, handed] = workspace.posted()
    assert handed["text"] == HANDED_OFF and "blocks" not in handed and handed["channel"] == "D0DM01"
    assert session_of(db, made["uuid"]).human_requested is True


def test_a_pre_canned_agents_choices_are_the_generic_channels_buttons_and_its_button_event_asks_one(
    owner: Api, callback: Receiver, clock: ManualClock, db: Db
) -> None:
    bot = desk(owner, ["Opening hours", "Book *an* appointment"])
    made = channel(owner, bot, "generic", {"callback_url": callback.url("/replies")})
    secret = made["signing_secret"]
    generic(
        owner, made, secret, {"id": "evt-1", "type": "message", "user": {"id": "u-7"}, "thread": "t-1", "text": "Hi"}
    )
    run_channel_jobs(owner.client, clock)
    [reply] = replies(callback)
    assert reply["text"] == "How can we help?"  # the choices are buttons, not text
    assert [button["text"] for button in reply["buttons"]] == ["Opening hours", "Book *an* appointment"]
    assert len({button["id"] for button in reply["buttons"]}) == 2
    event = {
        "id": "evt-2",
        "type": "button",
        "user": {"id": "u-7"},
        "thread": "t-1",
        "button_id": reply["buttons"][1]["id"],
    }
    assert generic(owner, made, secret, event).json() == {"ok": True}
    run_channel_jobs(owner.client, clock)
    session = session_of(db, made["uuid"])
    queries = [message["query"] for message in owner.ok(owner.get(f"/session/{session.uuid}/messages"))]
    assert queries == ["Hi", "Book *an* appointment"]
    assert len(replies(callback)) == 2


def test_choices_a_channel_cannot_show_are_numbered_lines_and_a_foreign_token_asks_nothing(
    owner: Api, workspace: SlackApi, bot_api: TelegramApi, clock: ManualClock, db: Db
) -> None:
    long = "A choice of eighty characters, which is more than a Slack button's label can hold"[:80]
    assert 75 < len(long) <= 80
    bot = desk(owner, ["Opening hours", long])
    on_slack = channel(owner, bot, "slack", {"bot_token": BOT_TOKEN, "signing_secret": SIGNING_SECRET})
    inbound(owner, on_slack, *signed_request(event_callback("Ev01", "Hello")))
    on_telegram = channel(owner, bot, "telegram", {"bot_token": TOKEN})
    secret = bot_api.webhook["secret_token"]
    telegram(owner, on_telegram, update(1, "Hello"), secret)
    run_channel_jobs(owner.client, clock)
    [numbered] = workspace.posted()
    assert "blocks" not in numbered
    assert numbered["text"] == f"How can we help?\n\n1. Opening hours\n2. {long}"
    [shown] = bot_api.sent()  # Telegram shows both as buttons
    assert shown.text == "How can we help?" and [row[0]["text"] for row in shown.keyboard] == ["Opening hours", long]
    # A press whose token is not one of this channel's choices: stored, answered (Telegram), asked nothing.
    telegrams = shown.keyboard[0][0]["callback_data"]  # Telegram's reply, not this Slack channel's
    foreign = {"action_id": "choice_0", "block_id": "botyard_choices", "text": {}, "value": telegrams}
    inbound(owner, on_slack, *signed_form(block_actions(foreign, trigger_id="trig-1")))
    telegram(owner, on_telegram, pressed(2, "0" * 32 + ":0", query_id="q-unknown"), secret)
    telegram(owner, on_telegram, pressed(3, telegrams.partition(":")[0] + ":²", query_id="q-odd"), secret)
    run_channel_jobs(owner.client, clock)
    assert len(workspace.posted()) == 1 and len(bot_api.sent()) == 1
    assert bot_api.calls("answerCallbackQuery") == [{"callback_query_id": "q-unknown"}, {"callback_query_id": "q-odd"}]
    assert events(db) == 5
    # Where the choices were numbered lines, the customer writes a number: that choice is asked.
    clock.advance(60)
    inbound(owner, on_slack, *signed_request(event_callback("Ev02", "2")))
    run_channel_jobs(owner.client, clock)
    slack_session = session_of(db, on_slack["uuid"])
    queries = [message["query"] for message in owner.ok(owner.get(f"/session/{slack_session.uuid}/messages"))]
    assert queries == ["Hello", long]
