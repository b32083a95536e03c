"""Phone numbers as identity: one customer is one identity whatever the formatting of their number.

Providers give numbers in international form, in their own spelling: WhatsApp's `wa_id` as digits without a plus
(`5511987654321`), Twilio's `From` in E.164 (`+15551234567`), an owner typing `+1 (555) 123-4567` or
`0049 151 ...`. `canonical` turns each into E.164 (`phonenumbers`, the port of Google's libphonenumber), the one
spelling stored as a channel user's id. Brazil added a ninth digit to every mobile number (2012-2016), and Meta still
delivers the WhatsApp numbers registered before it without it (`55 11 8765-4321`): such a number is the same person
as the one with the 9 (`55 11 98765-4321`), so it is stored with it. What is sent back goes to the number as the
provider gave it (kept in the event's details): the provider knows which one it routes.
"""

from __future__ import annotations

import re

import phonenumbers

_BRAZIL = "55"
_NOT_DIGITS = re.compile(r"[^\d+]")


class NotAPhoneNumber(ValueError):
    """What was given is not a phone number in international form."""


def canonical(raw: str) -> str:
    """The number in E.164 (`+5511987654321`); a Brazilian mobile number without its ninth digit gets it.
    `NotAPhoneNumber` when it is not one in international form (a national number has no country to read)."""
    text = _NOT_DIGITS.sub("", raw.strip())
    if text.startswith("00"):
        text = "+" + text[2:]
    elif not text.startswith("+"):
        text = "+" + text
    try:
        number = phonenumbers.parse(text, None)
    except phonenumbers.NumberParseException as error:
        raise NotAPhoneNumber(f"not a phone number in international form: {error}") from None
    formatted = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    return _with_brazilian_ninth_digit(formatted)


def _with_brazilian_ninth_digit(e164: str) -> str:
    """`+55` + a two-digit area code + eight digits that start as a mobile number's do (6-9): the number from before
    the ninth digit, which is a 9 put in front of those eight."""
    digits = e164[1:]
    if digits.startswith(_BRAZIL) and len(digits) == 12 and digits[4] in "6789":
        return f"+{digits[:4]}9{digits[4:]}"
    return e164


def same_person(one: str, other: str) -> bool:
    """Whether two spellings are one number (both canonical); False when either is not a number."""
    try:
        return canonical(one) == canonical(other)
    except NotAPhoneNumber:
        return False
