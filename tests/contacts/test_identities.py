"""Which identities each channel gives of a person (`contacts.identities`), as a table: the same person on WhatsApp
and SMS is one phone, an address in any case is one email, the generic channel's ids are its owner's own."""

from __future__ import annotations

import pytest

from botyard.contacts import identities
from botyard.contacts.identities import Identity
from botyard.models import IdentityKind

CHANNEL = "c" * 32


@pytest.mark.parametrize(
    ("channel_type", "user", "expected"),
    [
        ("whatsapp", "5511987654321", [Identity(IdentityKind.PHONE, "+5511987654321")]),
        ("sms", "+55 11 98765-4321", [Identity(IdentityKind.PHONE, "+5511987654321")]),
        ("email", " Ada@Example.COM ", [Identity(IdentityKind.EMAIL, "ada@example.com")]),
        ("telegram", "42", [Identity(IdentityKind.TELEGRAM, "42")]),
        ("slack", "U123", [Identity(IdentityKind.SLACK, "U123")]),
        ("messenger", "9001", [Identity(IdentityKind.MESSENGER, "9001")]),
        ("instagram", "77", [Identity(IdentityKind.INSTAGRAM, "77")]),
        ("generic", "u-7", [Identity(IdentityKind.WEBHOOK, f"{CHANNEL}:u-7")]),
        ("sms", "not a number", []),
        ("email", "nobody", []),
        ("telegram", "  ", []),
    ],
)
def test_each_channel_gives_its_identity(channel_type: str, user: str, expected: list[Identity]) -> None:
    assert identities.of_channel(channel_type, CHANNEL, user) == expected


def test_the_widget_gives_its_visitor_on_the_chatbot_and_what_was_given() -> None:
    assert identities.visitor("b" * 32, "device-1") == [Identity(IdentityKind.VISITOR, f"{'b' * 32}:device-1")]
    assert identities.visitor("b" * 32, "") == []
    given = identities.given("Sam@Shop.example", "+44 20 7946 0958")
    assert given == [Identity(IdentityKind.EMAIL, "sam@shop.example"), Identity(IdentityKind.PHONE, "+442079460958")]
    assert identities.given("no address", "123") == []
