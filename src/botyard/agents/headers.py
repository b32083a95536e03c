"""A tool function's headers as replies show them: every name, no value. A header usually carries a credential
(`Authorization: Bearer ...`, `X-Api-Key`), and every role reads agents, so each value is shown masked, to
everyone, the maker included (as the settings page shows the model's key): eight asterisks, then the value's last
four characters when it is long enough that they give nothing away.

A client that reads a function and sends its headers back (the dashboard's edit form does) sends the masks back:
a header whose value is its stored value's mask keeps the stored value, any other value replaces it. A value that
looks like a mask but is not this header's (a renamed header, a mask copied from another function) is refused, so
that a mask is never stored and sent as if it were the credential.
"""

from __future__ import annotations

from collections.abc import Mapping

from botyard.errors import AppError, validation_error

MASK = "********"
SHOWN_FROM = 24
"""The length from which a value's last four characters are shown: a short value (`Bearer abc`) would show most of
its secret part in them."""


def masked(value: str) -> str:
    return MASK + value[-4:] if len(value) >= SHOWN_FROM else MASK


def shown(headers: Mapping[str, object]) -> dict[str, str]:
    """The headers as a reply shows them: the names, each value masked."""
    return {str(name): masked(str(value)) for name, value in headers.items()}


def merged(given: Mapping[str, str], stored: Mapping[str, object]) -> dict[str, str]:
    """The headers to store for `given` (the new set: names left out are dropped): a masked value keeps the value
    stored under the same name; anything else is the new value."""
    result: dict[str, str] = {}
    refused: list[str] = []
    for name, value in given.items():
        old = stored.get(name)
        if old is not None and value == masked(str(old)):
            result[name] = str(old)
        elif value.startswith(MASK):
            refused.append(name)
        else:
            result[name] = value
    if refused:
        raise _masked_refused(refused)
    return result


def _masked_refused(names: list[str]) -> AppError:
    message = (
        "is a masked value, which keeps only the stored value of the same header of this function: type the "
        "header's value again (a new or renamed header has no stored value to keep)"
    )
    details = [{"field": f"headers.{name}", "message": message, "type": "masked_value"} for name in names]
    return validation_error(f"Invalid request (headers.{names[0]}): {message}", details)
