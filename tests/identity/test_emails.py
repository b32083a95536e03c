"""Email addresses that pass for another once lower-cased (the Kelvin sign `K` lowers to `k`) are refused wherever
an address comes in: invitations, the setup page, the command line, sign-in; single sign-on is in
tests/identity/test_sso.py. Ordinary non-ASCII addresses keep working."""

from __future__ import annotations

import sys
import unicodedata
from collections import defaultdict

import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.errors import AppError
from botyard.identity.accounts import setup
from botyard.identity.emails import normalise_email, stand_in
from botyard.models import Role
from tests.support.api import assert_error
from tests.support.cli import botyard
from tests.support.database import Db
from tests.support.people import SAME_ORIGIN, person

KELVIN = "\u212aate@example.com"  # "Kate" with the Kelvin sign: lower() makes it kate@example.com


@pytest.mark.parametrize(
    "address",
    [
        KELVIN,
        "\u212bsa@example.com",  # the Ångström sign, which lowers to the å of Åsa
        "\u2126mega@example.com",  # the ohm sign, lowering to the Greek ω
        "\u0130pek@example.com",  # the dotted capital I, lowering to i and a combining dot
        "ro\u017fe@example.com",  # the long s
        "\ufb01nn@example.com",  # the ligature fi
        "\uff4bate@example.com",  # fullwidth k
        "\U0001d424ate@example.com",  # mathematical bold k
        "kate@exampl\u212a.com",  # in the domain too
    ],
)
def test_an_address_with_a_character_that_passes_for_another_is_refused(address: str) -> None:
    with pytest.raises(AppError) as refused:
        normalise_email(address)
    assert refused.value.status == 422 and "ordinary letters" in refused.value.message


@pytest.mark.parametrize(
    ("address", "stored"),
    [
        ("  Kate@Example.COM ", "kate@example.com"),
        ("J\u00fcrgen@Example.de", "j\u00fcrgen@example.de"),
        ("JOS\u00c9@example.es", "jos\u00e9@example.es"),
        ("STRA\u1e9eE@example.de", "stra\u00dfe@example.de"),  # the capital sharp s and its small letter
        ("\u03a3\u03bf\u03c6\u03af\u03b1@example.gr", "\u03c3\u03bf\u03c6\u03af\u03b1@example.gr"),
        ("\u674e@example.cn", "\u674e@example.cn"),
    ],
)
def test_ordinary_addresses_are_kept_in_lower_case(address: str, stored: str) -> None:
    assert normalise_email(address) == stored


def test_no_two_accepted_characters_lower_to_the_same_but_a_letters_two_cases() -> None:
    """Over all of Unicode: what `stand_in` lets through never lowers into ASCII, and any two characters that
    lower alike are a letter's capital and small forms: no other way of writing an address compares equal."""
    alike: defaultdict[str, set[str]] = defaultdict(set)
    for point in range(0x80, sys.maxunicode + 1):
        char = chr(point)
        if unicodedata.category(char) in ("Cs", "Cn") or stand_in(char):
            continue
        lowered = char.lower()
        assert not any(part.isascii() for part in lowered), char
        alike[lowered].add(char)
    odd = {low: chars for low, chars in alike.items() if len(chars) > 2 or (len(chars) == 2 and low not in chars)}
    assert odd == {}


def test_an_invitation_and_the_setup_refuse_it_in_words(client: TestClient, db: Db, settings: Settings) -> None:
    token = setup.offer(settings)
    body = {"token": token, "email": KELVIN, "password": "a long enough password"}
    refused = assert_error(client.post("/api/v1/setup", json=body, headers=SAME_ORIGIN), 422, "validation_error")
    assert "KELVIN SIGN" in refused["error"] and "ordinary letters" in refused["error"]
    assert setup.token_path(settings).exists()  # no account was made: the link still works

    admin = person(client, db, "acme@example.com", "admin@example.com", Role.ADMIN)
    person(client, db, "acme@example.com", "kate@example.com", Role.EDITOR)
    invited = admin.post("/account/invitation/create", {"email": KELVIN, "role": "editor"})
    assert_error(invited, 422, "validation_error")
    assert admin.ok(admin.get("/account/invitations")) == []
    wrong = client.post("/api/v1/auth/sign-in", json={"email": KELVIN, "password": "correct horse battery"})
    assert wrong.status_code == 401  # not kate's sign-in


def test_the_command_line_refuses_it(client: TestClient, settings: Settings) -> None:
    made = botyard(settings, "key", "create", "--email", KELVIN)
    assert made.returncode != 0 and made.stdout == ""
    assert "ordinary letters" in made.stderr
