"""Phone numbers as identity (`contacts.phones`): every spelling of one number is one E.164 string, and a Brazilian
mobile number that Meta delivers without its ninth digit is the same person as the one with it."""

from __future__ import annotations

import pytest

from botyard.contacts.phones import NotAPhoneNumber, canonical, same_person


@pytest.mark.parametrize(
    "spelling",
    ["+1 (415) 555-0100", "14155550100", "+14155550100", "001 415 555 0100", "  +1-415-555-0100 "],
)
def test_every_spelling_of_a_number_is_one_e164_string(spelling: str) -> None:
    assert canonical(spelling) == "+14155550100"


def test_a_brazilian_mobile_number_without_its_ninth_digit_is_the_one_with_it() -> None:
    assert canonical("551187654321") == "+5511987654321"  # as Meta's wa_id gives an older number
    assert canonical("+55 11 98765-4321") == "+5511987654321"
    assert same_person("551187654321", "+55 (11) 98765-4321")


def test_a_brazilian_landline_keeps_its_eight_digits() -> None:
    assert canonical("+55 11 3456-7890") == "+551134567890"  # a landline starts with 2-5: no ninth digit


def test_other_countries_numbers_are_not_changed_by_the_brazilian_rule() -> None:
    assert canonical("+49 151 12345678") == "+4915112345678"
    assert not same_person("+4915112345678", "+49915112345678")


def test_what_is_not_a_number_says_so() -> None:
    with pytest.raises(NotAPhoneNumber):
        canonical("not a number")
    assert not same_person("hello", "+14155550100")
