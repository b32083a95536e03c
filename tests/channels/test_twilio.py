"""Twilio's pure part: the webhook signature against the example of Twilio's own documentation, the keywords, a
webhook's parameters read as a message or a status."""

from __future__ import annotations

import pytest

from botyard.channels.inbound import NotTheShape
from botyard.channels.sms import twilio
from botyard.models import ReceiptStatus

DOCS_URL = "https://mycompany.com/myapp.php?foo=1&bar=2"
DOCS_PARAMS = [
    ("Digits", "1234"),
    ("To", "+18005551212"),
    ("From", "+12349013030"),
    ("Caller", "+12349013030"),
    ("CallSid", "CA1234567890ABCDE"),
]


def test_the_signature_is_the_one_of_twilios_documentation() -> None:
    # https://www.twilio.com/docs/usage/webhooks/webhooks-security: auth token 12345, this URL and these parameters.
    assert twilio.signature("12345", DOCS_URL, DOCS_PARAMS) == "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
    headers = {"x-twilio-signature": "0/KCTR6DLpKmkAf8muzZqo1nDgQ="}
    assert twilio.signed(headers, DOCS_URL, DOCS_PARAMS, "12345")
    assert not twilio.signed(headers, DOCS_URL.replace("https", "http"), DOCS_PARAMS, "12345")
    assert not twilio.signed(headers, DOCS_URL, [*DOCS_PARAMS[:-1], ("CallSid", "CA0")], "12345")
    assert not twilio.signed(headers, DOCS_URL, DOCS_PARAMS, "54321")
    assert not twilio.signed({}, DOCS_URL, DOCS_PARAMS, "12345")


@pytest.mark.parametrize(
    ("text", "keyword"),
    [
        ("STOP", twilio.Keyword.STOP),
        (" stop ", twilio.Keyword.STOP),
        ("Unsubscribe.", twilio.Keyword.STOP),
        ("stopall", twilio.Keyword.STOP),
        ("cancel", twilio.Keyword.STOP),
        ("End", twilio.Keyword.STOP),
        ("quit!", twilio.Keyword.STOP),
        ("start", twilio.Keyword.START),
        ("YES", twilio.Keyword.START),
        ("unstop", twilio.Keyword.START),
        ("help", twilio.Keyword.HELP),
        ("please stop", None),
        ("stop it", None),
        ("yes please", None),
        ("", None),
    ],
)
def test_a_keyword_is_the_whole_message_whatever_its_case(text: str, keyword: twilio.Keyword | None) -> None:
    assert twilio.keyword(text) == keyword


def test_a_message_is_read_with_its_sender_in_e164_and_a_keyword_is_not_asked() -> None:
    params = {"MessageSid": "SM1", "From": "+1 (415) 555-0100", "To": "+14155550199", "Body": " Hello? "}
    found = twilio.webhook(params)
    assert isinstance(found, twilio.Message) and found.user == "+14155550100" and found.keyword is None
    assert found.delivery.external_id == "SM1" and found.delivery.said is not None
    assert found.delivery.said.text == "Hello?" and found.delivery.said.conversation == "+14155550199:+14155550100"
    stop = twilio.webhook(params | {"Body": "STOP"})
    assert isinstance(stop, twilio.Message) and stop.keyword == twilio.Keyword.STOP and stop.delivery.said is None


def test_a_status_callback_is_read_as_a_status() -> None:
    found = twilio.webhook({"MessageSid": "SM2", "MessageStatus": "undelivered", "ErrorCode": "30003"})
    assert found == twilio.Status("SM2", ReceiptStatus.FAILED, "Twilio error 30003")
    assert twilio.webhook({"MessageSid": "SM2", "MessageStatus": "delivered"}) == twilio.Status(
        "SM2", ReceiptStatus.DELIVERED, ""
    )


@pytest.mark.parametrize(
    "params",
    [{}, {"MessageSid": "SM3", "From": "not a number", "Body": "hi"}, {"MessageSid": "SM4", "MessageStatus": "lost"}],
)
def test_what_is_not_twilios_shape_is_refused(params: dict[str, str]) -> None:
    with pytest.raises(NotTheShape):
        twilio.webhook(params)


def test_a_message_goes_from_the_number_or_through_the_messaging_service() -> None:
    service = "MG" + "0" * 32
    assert twilio.message_form("+1", "+2", "hi", None) == {"To": "+1", "Body": "hi", "From": "+2"}
    assert twilio.message_form("+1", service, "hi", "https://x/cb")["MessagingServiceSid"] == service
    error = {"code": 21610, "message": "Attempt to send to unsubscribed recipient", "more_info": "", "status": 400}
    refused = twilio.refusal(400, error)
    assert refused.unsubscribed and not refused.passing
    assert twilio.refusal(429, {"code": 20429, "message": "Too Many Requests"}).passing
    assert twilio.refusal(503, "not json").passing
