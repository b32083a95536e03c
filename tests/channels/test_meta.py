"""The pure rules of Meta's channels, as tables: the webhook's verification and signature, the Graph API's errors
read (passing or permanent), the 24-hour window, and WhatsApp's and Messenger's deliveries and messages in their
documented shapes (a list for more than 3 choices, a template's quick reply, statuses, echoes)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from botyard.channels import messenger, meta, whatsapp, window
from botyard.channels.inbound import NotTheShape
from tests.support.graph_api import (
    APP_SECRET,
    PAGE_ID,
    PHONE_NUMBER_ID,
    m_text,
    messaging_delivery,
    signed,
    wa_pressed,
    wa_status,
    wa_text,
    whatsapp_delivery,
)

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ({"hub.mode": "subscribe", "hub.verify_token": "tok", "hub.challenge": "42"}, "42"),
        ({"hub.mode": "subscribe", "hub.verify_token": "other", "hub.challenge": "42"}, None),
        ({"hub.mode": "unsubscribe", "hub.verify_token": "tok", "hub.challenge": "42"}, None),
        ({"hub.mode": "subscribe", "hub.challenge": "42"}, None),
    ],
)
def test_the_subscription_is_answered_only_with_the_channels_verify_token(
    query: dict[str, str], answer: str | None
) -> None:
    assert meta.verified(query, "tok") == answer


def test_a_delivery_is_signed_on_its_raw_bytes_with_the_app_secret() -> None:
    body = b'{"object":"page"}'
    headers = {name.lower(): value for name, value in signed(body).items()}
    assert meta.signed(headers, body, APP_SECRET)
    assert not meta.signed(headers, body + b" ", APP_SECRET)
    assert not meta.signed(headers, body, "another secret")
    assert not meta.signed({}, body, APP_SECRET)


@pytest.mark.parametrize(
    ("status", "code", "passing"),
    [(500, 2, True), (429, None, True), (400, 4, True), (400, 80007, True), (400, 130429, True),
     (400, 131056, True), (400, 131047, False), (401, 190, False), (400, 100, False)],
)  # fmt: skip
def test_graph_errors_are_tried_again_only_when_meta_is_in_trouble_or_throttling(
    status: int, code: int | None, passing: bool
) -> None:
    error = {"message": "Something", "type": "OAuthException", "code": code, "fbtrace_id": "Ab"}
    refusal = meta.refusal(status, {"error": error})
    assert refusal.passing is passing and refusal.code == code
    assert meta.refusal(502, b"<html>").passing and "http 502" in str(meta.refusal(502, None))


@pytest.mark.parametrize(
    ("kind", "ago", "open_", "human_agent"),
    [("whatsapp", timedelta(hours=23), True, True), ("whatsapp", timedelta(hours=25), False, True),
     ("messenger", timedelta(days=6), False, True), ("instagram", timedelta(days=8), False, False),
     ("telegram", timedelta(days=30), True, True)],
)  # fmt: skip
def test_the_window_is_24_hours_and_a_persons_reply_7_days(
    kind: str, ago: timedelta, open_: bool, human_agent: bool
) -> None:
    found = window.of(kind, NOW - ago, NOW)
    assert (found.open, found.human_agent) == (open_, human_agent)
    assert not window.of("whatsapp", None, NOW).open  # no message of the customer's known


def test_a_whatsapp_batch_reads_each_message_and_status_of_its_own_number() -> None:
    update = whatsapp_delivery(
        [
            wa_text("wamid.1", "5511987654321", "Hello"),
            wa_pressed("wamid.2", "551187654321", "a" * 32 + ":1", "Book", kind="list_reply"),
            {"from": "447700900123", "id": "wamid.3", "timestamp": "1764680001", "type": "button",
             "button": {"text": "Stop promotions", "payload": "stop"}},
            {"from": "447700900123", "id": "wamid.4", "timestamp": "1764680002", "type": "image", "image": {}},
        ],
        [wa_status("wamid.9", "failed", "447700900123", [{"code": 131026, "title": "Message undeliverable"}])],
    )  # fmt: skip
    batch = whatsapp.batch(update, PHONE_NUMBER_ID)
    first, pressed, button, image = batch.deliveries
    assert (
        first.said is not None and first.said.user_id == "+5511987654321" and first.details["wa_id"] == "5511987654321"
    )
    assert pressed.pressed is not None and pressed.pressed.user_id == "+5511987654321"
    assert pressed.details == {"wa_id": "551187654321", "message_id": "wamid.2"}
    assert button.said is not None and button.said.text == "Stop promotions"
    assert image.said is None and image.pressed is None
    assert batch.statuses == [meta.Status("wamid.9", "failed", "WhatsApp #131026: Message undeliverable")]
    assert whatsapp.batch(update, "another number").deliveries == []
    with pytest.raises(NotTheShape):
        whatsapp.batch({"object": "page"}, PHONE_NUMBER_ID)


def test_whatsapp_shows_3_choices_as_buttons_10_as_a_list_and_more_as_numbered_lines() -> None:
    assert len(whatsapp.shown("r" * 32, ["One", "Two", "Three"])) == 3
    rows = whatsapp.shown("r" * 32, [f"Choice {n}" for n in range(10)])
    assert whatsapp.interactive("1555", "Pick one", rows)["interactive"]["type"] == "list"
    assert whatsapp.interactive("1555", "Pick one", rows[:3])["interactive"]["type"] == "button"
    assert whatsapp.shown("r" * 32, [f"Choice {n}" for n in range(11)]) == []
    assert whatsapp.shown("r" * 32, ["A title longer than twenty-four"]) == []


def test_a_messenger_batch_ignores_echoes_and_reads_statuses_and_postbacks() -> None:
    echo = m_text("m_1", PAGE_ID, "psid", "ours", is_echo=True)
    text = m_text("m_2", "psid", PAGE_ID, "  Hello ")
    long_mid = "m_" + "x" * 300
    postback = {"sender": {"id": "psid"}, "timestamp": 5, "postback": {"mid": long_mid, "payload": "tok"}}
    read = {"sender": {"id": "psid"}, "read": {"mid": "m_9"}}
    delivered = {"sender": {"id": "psid"}, "delivery": {"mids": ["m_7", "m_8"]}}
    batch = messenger.batch(
        messaging_delivery("page", PAGE_ID, echo, text, postback, read, delivered), "messenger", PAGE_ID
    )
    ours, said, pressed = batch.deliveries
    assert ours.said is None and said.said is not None and said.said.text == "Hello"
    assert pressed.pressed is not None and pressed.pressed.token == "tok" and len(pressed.external_id) <= 128
    assert [(s.provider_id, s.status) for s in batch.statuses] == [
        ("m_9", "read"),
        ("m_7", "delivered"),
        ("m_8", "delivered"),
    ]
    body = messenger.message("psid", "Hi", tag="HUMAN_AGENT")
    assert body["messaging_type"] == "MESSAGE_TAG" and body["tag"] == "HUMAN_AGENT"


def test_an_answers_images_and_documents_go_as_links_of_their_own() -> None:
    answer = "See the map ![Map](https://shop.example/map.png) and [the prices](https://shop.example/prices.pdf?v=2)."
    assert meta.media_of(answer) == [
        ("image", "https://shop.example/map.png"),
        ("document", "https://shop.example/prices.pdf?v=2"),
    ]
    assert meta.media_of("[a page](https://shop.example/about) ![local](/map.png)") == []
    assert "map.png" not in meta.without_images(answer)
    assert whatsapp.media("1555", "image", "https://shop.example/map.png")["image"] == {
        "link": "https://shop.example/map.png"
    }
