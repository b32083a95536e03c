"""The one form an email address is stored and compared in, and the addresses refused because they would pass for
another one.

Addresses are compared in lower case (`str.lower`), and the case mapping of Unicode makes some characters the lower
case of a letter they are not: the Kelvin sign (U+212A) lowers to the ASCII `k`, so a verified single sign-on
address "Kate@example.com" written with it signed in as the member kate@example.com. The same holds for the
Angstrom and ohm signs and the dotted capital I (U+0130 lowers to `i` and a combining dot). Compatibility forms pass
for ASCII letters in the same way where a provider or a mail server folds them (the long s U+017F, the ligature
U+FB01, fullwidth and mathematical letters). An address with any such character is refused (422) rather than
compared in some normal form: whichever form, the address someone else reads, types or gets mail at would not be the
one compared. Every other non-ASCII letter (`jürgen@`, `josé@`, `straße@`) is kept, lower-cased as before.
"""

from __future__ import annotations

import unicodedata

from botyard.errors import AppError, ErrorCode


def normalise_email(email: str) -> str:
    """The one form an email address is stored and compared in (trimmed, lower case), or 422: not an address, or
    one with a character that would pass for another letter (`stand_in`)."""
    email = email.strip()
    lowered = email.lower()
    if "@" not in lowered or lowered.startswith("@") or lowered.endswith("@") or len(lowered) > 320:
        raise AppError(ErrorCode.VALIDATION_ERROR, f"Not an email address: {lowered!r}")
    found = next((char for char in email if stand_in(char)), None)
    if found is not None:
        name = unicodedata.name(found, f"U+{ord(found):04X}")
        raise AppError(
            ErrorCode.VALIDATION_ERROR,
            f"The email address {email!r} has a character that passes for another letter ({name}, U+{ord(found):04X}):"
            " write the address with ordinary letters, as its mailbox spells it",
        )
    return lowered


def stand_in(char: str) -> bool:
    """Whether a character of an address would pass for another once compared: a non-ASCII character that Unicode
    counts as another one written differently (its NFKC form is not itself: the Kelvin sign is `K`, the long s is
    `s`, the ligature U+FB01 is `fi`), or whose lower case holds an ASCII character (U+0130, the dotted capital I).
    Every character this lets through lowers to itself or to its own small letter, and no two of them to the same
    one unless they are that letter's cases (checked over all of Unicode in tests/identity/test_emails.py)."""
    if char.isascii():
        return False
    return unicodedata.normalize("NFKC", char) != char or any(part.isascii() for part in char.lower())
