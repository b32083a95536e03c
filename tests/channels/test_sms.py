"""SMS end to end against a Twilio API on loopback (tests/support/twilio_api.py), both databases: the credentials
checked with Twilio when the channel is made, a message answered by the REST API in plain text, signatures refused
(over the public URL, not the request's own), repeats answered once, STOP and START honoured, a long reply split
into messages of at most 10 segments, Twilio's errors (429 outlasted, 21610 an opt-out). The clock is moved by hand."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import ChannelEvent, ChannelOptOut, ChannelReceipt, ChannelReply, ChatSession
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.channels import PUBLIC_URL, owner_app, run_channel_jobs, shop
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.twilio_api import (
    ACCOUNT_SID,
    AUTH_TOKEN,
    NUMBER,
    SERVICE_SID,
    TwilioApi,
    error,
    message,
    twilio_api,
    webhook,
)

CUSTOMER = "+14155550100"
EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>'


@pytest.fixture
def sms_api() -> Iterator[TwilioApi]:
    with twilio_api() as running:
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
    sms_api: TwilioApi,
) -> Iterator[Api]:
    with owner_app(settings, fake_dns, clock, issued_keys, twilio_api_url=sms_api.url) as own:
        yield own


def connect(api: Api, bot: str, **credentials: str) -> dict[str, Any]:
    given = {"account_sid": ACCOUNT_SID, "auth_token": AUTH_TOKEN, "phone_number": NUMBER, **credentials}
    given = {name: value for name, value in given.items() if value}
    body = {"type": "sms", "name": "Shop", "credentials": given}
    channel: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/channel/create", body))
    return channel


def text(api: Api, channel: dict[str, Any], body: str, **fields: Any) -> Any:
    """A message to the channel's number, delivered by Twilio to its inbound URL."""
    return webhook(api.client, channel["inbound_url"], message(body, **fields))


def count(db: Db, model: Any) -> int:
    return int(db.run(lambda s: s.scalar(select(func.count()).select_from(model))))


def test_a_channel_checks_the_credentials_with_twilio_and_shows_them_as_hints(owner: Api, sms_api: TwilioApi) -> None:
    bot = owner.chatbot()["uuid"]
    channel = connect(owner, bot, phone_number="+1 (415) 555-0199")
    assert channel["type"] == "sms" and channel["inbound_url"] == f"{PUBLIC_URL}/channels/{channel['uuid']}/inbound"
    assert channel["credentials"] == {
        "account_sid": "••••" + ACCOUNT_SID[-4:],
        "auth_token": "••••" + AUTH_TOKEN[-4:],
        "phone_number": "••••0199",
    }
    assert AUTH_TOKEN not in str(owner.ok(owner.get(f"/channel/{channel['uuid']}")))
    assert [path for path, _ in sms_api.calls("GET")] == [f"/2010-04-01/Accounts/{ACCOUNT_SID}.json"]
    # One channel per number, however it is written.
    body = {
        "type": "sms",
        "credentials": {"account_sid": ACCOUNT_SID, "auth_token": AUTH_TOKEN, "phone_number": NUMBER},
    }
    assert_error(owner.post(f"/chatbot/{bot}/channel/create", body), 409, "channel_bot_in_use")
    body["credentials"]["auth_token"] = "not-the-token"
    body["credentials"]["phone_number"] = "+14155550123"
    refused = assert_error(owner.post(f"/chatbot/{bot}/channel/create", body), 422, "channel_refused")
    assert "Authenticate" in refused["error"] and "not-the-token" not in refused["error"]
    del body["credentials"]["phone_number"]
    missing = assert_error(owner.post(f"/chatbot/{bot}/channel/create", body), 422, "validation_error")
    assert missing["details"][0]["field"] == "credentials.phone_number"
    body["credentials"] |= {"phone_number": "not a number", "auth_token": AUTH_TOKEN}
    assert_error(owner.post(f"/chatbot/{bot}/channel/create", body), 422, "validation_error")
    assert len(owner.ok(owner.get(f"/chatbot/{bot}/channels"))) == 1


def test_a_message_is_answered_in_plain_text_by_the_rest_api_and_its_status_recorded(
    owner: Api, sms_api: TwilioApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner, shop(owner))
    accepted = text(owner, channel, "When are you open?")
    assert accepted.status_code == 200 and accepted.text == EMPTY_TWIML
    assert accepted.headers["content-type"].startswith("text/xml")
    assert sms_api.sent() == []  # nothing is answered inside the request
    run_channel_jobs(owner.client, clock)
    [reply] = sms_api.sent()
    assert reply.to == CUSTOMER and reply.sender == NUMBER and "nine to five" in reply.body
    assert "*" not in reply.body and "<" not in reply.body
    assert reply.status_callback == channel["inbound_url"]
    [receipt] = db.run(lambda s: s.scalars(select(ChannelReceipt))).all()
    assert receipt.provider_id == reply.sid and receipt.status == "sent"
    for status in ("delivered", "sent"):  # a late "sent" does not take "delivered" back
        form = {"MessageSid": reply.sid, "MessageStatus": status, "AccountSid": ACCOUNT_SID, "To": CUSTOMER}
        assert webhook(owner.client, reply.status_callback, form).status_code == 200
    assert db.run(lambda s: s.scalar(select(ChannelReceipt.status))) == "delivered"
    # The same customer, however the number is written, is one conversation.
    text(owner, channel, "And on Saturdays?", sender="+1 415-555-0100")
    run_channel_jobs(owner.client, clock)
    assert len(sms_api.sent_to(CUSTOMER)) == 2
    sessions = db.run(lambda s: s.scalars(select(ChatSession.channel_user))).all()
    assert sessions == [CUSTOMER]


def test_a_delivery_not_signed_by_twilio_for_the_public_url_is_refused_and_writes_nothing(
    owner: Api, sms_api: TwilioApi, db: Db
) -> None:
    channel = connect(owner, shop(owner))
    url = channel["inbound_url"]
    assert_error(webhook(owner.client, url, message("Hello"), auth_token="another-token"), 401, "signature_invalid")
    # Signed for the URL the request came to (behind a proxy), not the public one Twilio was given.
    local = url.replace(PUBLIC_URL, "http://testserver")
    assert_error(webhook(owner.client, local, message("Hello")), 401, "signature_invalid")
    params = message("Hello")
    tampered = webhook(owner.client, url, params)
    assert tampered.status_code == 200  # the genuine one passes; a changed body does not:
    headers = {"X-Twilio-Signature": "invalid", "Content-Type": "application/x-www-form-urlencoded"}
    assert_error(
        owner.client.post(url.removeprefix(PUBLIC_URL), content=b"Body=x", headers=headers), 401, "signature_invalid"
    )
    assert count(db, ChannelEvent) == 1
    assert count(db, ChannelOptOut) == 0


def test_the_same_message_delivered_again_and_five_times_at_once_is_answered_once(
    owner: Api, sms_api: TwilioApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner, shop(owner))
    params = message("When are you open?")
    assert webhook(owner.client, channel["inbound_url"], params).status_code == 200
    assert webhook(owner.client, channel["inbound_url"], params).status_code == 200
    assert count(db, ChannelEvent) == 1
    run_channel_jobs(owner.client, clock)
    assert len(sms_api.sent_to(CUSTOMER)) == 1
    again = message("Open on Saturday?")
    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(lambda _: webhook(owner.client, channel["inbound_url"], again), range(5)))
    assert [answer.status_code for answer in answers] == [200] * 5
    assert count(db, ChannelEvent) == 2
    run_channel_jobs(owner.client, clock)
    assert len(sms_api.sent_to(CUSTOMER)) == 2  # one answer for each message, however many times it came
    assert count(db, ChannelReply) == 2


def test_stop_sends_nothing_more_not_even_a_queued_reply_and_start_undoes_it(
    owner: Api, sms_api: TwilioApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner, shop(owner))
    text(owner, channel, "When are you open?")
    sms_api.fail_next(error(500, 20500, "Internal Server Error"))
    run_channel_jobs(owner.client, clock, until=clock.now + timedelta(seconds=1.5))
    [queued] = db.run(lambda s: s.scalars(select(ChannelReply))).all()  # answered, its reply not sent yet
    assert queued.state == "pending" and sms_api.sent() == []
    assert text(owner, channel, " stop ").text == EMPTY_TWIML
    run_channel_jobs(owner.client, clock)
    assert sms_api.sent() == []
    [opted] = db.run(lambda s: s.scalars(select(ChannelOptOut))).all()
    assert (opted.channel_uuid, opted.user_id) == (channel["uuid"], CUSTOMER)
    [reply] = db.run(lambda s: s.scalars(select(ChannelReply))).all()
    assert reply.state == "failed" and "opted out" in reply.last_error
    text(owner, channel, "Is it open now?")  # stored, not asked: no answer could reach them
    run_channel_jobs(owner.client, clock)
    assert sms_api.sent() == [] and count(db, ChannelReply) == 1
    assert count(db, ChannelEvent) == 3
    text(owner, channel, "START")
    assert count(db, ChannelOptOut) == 0
    text(owner, channel, "When are you open?")
    run_channel_jobs(owner.client, clock)
    assert len(sms_api.sent_to(CUSTOMER)) == 1


def test_help_is_answered_with_the_channels_help_text(owner: Api, sms_api: TwilioApi, clock: ManualClock) -> None:
    channel = connect(owner, shop(owner))
    text(owner, channel, "help")
    run_channel_jobs(owner.client, clock)
    [help_text] = sms_api.sent_to(CUSTOMER)
    assert help_text.startswith("Shop:") and "STOP" in help_text and "START" in help_text


def test_a_long_reply_goes_as_messages_of_at_most_ten_segments_cut_between_sentences(
    owner: Api, sms_api: TwilioApi
) -> None:
    channel = connect(owner, owner.chatbot()["uuid"])
    sentence = "Our **shop** opens at nine and closes at five. "
    body = {"to": CUSTOMER, "text": (sentence * 80).strip()}
    sent = owner.ok(owner.post(f"/channel/{channel['uuid']}/test", body))
    assert sent["parts"] == len(sms_api.sent()) > 1
    for part in sms_api.sent():
        assert part.segments <= 10 and part.body.endswith("five.") and "**" not in part.body
    assert " ".join(part.body for part in sms_api.sent()) == (sentence * 80).strip().replace("**", "")
    written = {"to": "+1 (415) 555-0100", "text": "Open 😀. " * 120}  # a number as people write it
    emoji = owner.ok(owner.post(f"/channel/{channel['uuid']}/test", written))
    assert all(part.segments <= 10 for part in sms_api.sent()[sent["parts"] :]) and emoji["parts"] > 1
    assert {part.to for part in sms_api.sent()} == {CUSTOMER}
    nobody = assert_error(owner.post(f"/channel/{channel['uuid']}/test", {"to": "nobody"}), 422, "channel_send_failed")
    assert "international form" in nobody["error"]


def test_twilios_429_is_outlasted_and_its_21610_fails_the_reply_and_opts_the_number_out(
    owner: Api, sms_api: TwilioApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner, shop(owner), phone_number="", messaging_service_sid=SERVICE_SID)
    sms_api.fail_next(error(429, 20429, "Too Many Requests"), error(500, 20500, "Internal Server Error"))
    text(owner, channel, "When are you open?")
    run_channel_jobs(owner.client, clock)
    [reply] = sms_api.sent()
    assert reply.sender == SERVICE_SID and "nine to five" in reply.body
    sms_api.opt_out(CUSTOMER)  # the customer sent STOP to Twilio while our webhook was down
    text(owner, channel, "And on Saturdays?")
    run_channel_jobs(owner.client, clock)
    assert len(sms_api.sent()) == 1
    failed = db.run(lambda s: s.scalars(select(ChannelReply).where(ChannelReply.state == "failed"))).all()
    assert len(failed) == 1 and "21610" in failed[0].last_error
    assert count(db, ChannelOptOut) == 1


def test_another_accounts_sms_channel_is_missing(owner: Api, alice: Api, sms_api: TwilioApi) -> None:
    channel = connect(owner, shop(owner))
    assert_not_found(alice.get(f"/channel/{channel['uuid']}"))
    assert_not_found(alice.post(f"/channel/{channel['uuid']}/test", {"to": CUSTOMER}))
    assert_not_found(alice.post(f"/channel/{channel['uuid']}/update", {"name": "Mine"}))
    assert owner.ok(owner.get(f"/channel/{channel['uuid']}"))["name"] == "Shop"


def test_new_credentials_are_checked_with_twilio_and_a_new_number_takes_the_place_of_the_old(owner: Api) -> None:
    bot = shop(owner)
    channel = connect(owner, bot)
    path = f"/channel/{channel['uuid']}/update"
    refused = assert_error(owner.post(path, {"credentials": {"auth_token": "rotated-wrongly"}}), 422, "channel_refused")
    assert "Authenticate" in refused["error"]
    moved = owner.ok(owner.post(path, {"credentials": {"phone_number": "+1 415 555 0142"}}))
    assert moved["credentials"]["phone_number"] == "••••0142"
    connect(owner, bot)  # the old number is free again
    # The moved channel sends from its new number, which this Twilio account does not have:
    sent = owner.post(f"/channel/{channel['uuid']}/test", {"to": CUSTOMER})
    refused = assert_error(sent, 422, "channel_send_failed")
    assert "21606" in refused["error"] and "+14155550142" in refused["error"]


def test_live_chat_on_sms_the_operator_texts_the_customer_and_the_bot_is_silent(
    owner: Api, sms_api: TwilioApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner, shop(owner))
    text(owner, channel, "When are you open?")
    run_channel_jobs(owner.client, clock)
    [session] = db.run(lambda s: s.scalars(select(ChatSession.uuid))).all()
    owner.ok(owner.post(f"/session/{session}/live-chat/start"))
    run_channel_jobs(owner.client, clock)
    assert sms_api.sent_to(CUSTOMER)[-1] == "You are now chatting with a person."
    clock.advance(5)
    text(owner, channel, "Can you hold a parcel for me?")
    run_channel_jobs(owner.client, clock)
    assert len(sms_api.sent_to(CUSTOMER)) == 2  # the bot said nothing: an operator has the conversation
    owner.ok(owner.post(f"/session/{session}/live-chat/message", {"text": "Yes, **until** Friday"}))
    owner.ok(owner.post(f"/session/{session}/live-chat/end"))
    run_channel_jobs(owner.client, clock)
    assert sms_api.sent_to(CUSTOMER)[2:] == [
        "Yes, until Friday",  # plain text: Markdown's marks dropped
        "The person has left the chat. I am back to answer your questions.",
    ]
