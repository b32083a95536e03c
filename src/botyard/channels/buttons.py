"""Choices as buttons: the choices that go with a reply (the message's `meta_json.choices`: the offer of a person's,
a pre-canned agent's) shown as each channel shows buttons, within its limits; a button pressed comes back as the
customer's message (`intake`).

A button carries a token, `{reply uuid}:{index}` (at most 35 bytes, within Telegram's 64-byte `callback_data`),
never the choice's text: pressed, the token names the channel reply it was sent with, and the choice is read from
that reply's stored message, so a press can only ask what this channel offered in that chat. Where a channel cannot
show the choices (more than it takes, a text longer than its label), they are numbered lines at the end of the
reply instead, and the customer writes one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from botyard.channels.render import Reply, markdown_escaped

_UUID_CHARS = 32


@dataclass(frozen=True)
class Button:
    """One choice as a channel shows it: `id` is its token, `text` what the button says."""

    id: str
    text: str


@dataclass(frozen=True)
class Limits:
    """What a channel can show: at most `most` buttons, each label at most `chars` characters (None: no limit)."""

    most: int
    chars: int | None


TELEGRAM = Limits(most=100, chars=None)
"""An inline keyboard of up to 100 buttons; Telegram shortens a long label on screen, it refuses none."""
SLACK = Limits(most=25, chars=75)
"""An `actions` block holds 25 elements; a button's `plain_text` label is at most 75 characters."""
GENERIC = Limits(most=100, chars=None)
"""The receiving system shows what it can: every choice goes as a button."""


def token(reply_uuid: str, index: int) -> str:
    return f"{reply_uuid}:{index}"


def shown(reply_uuid: str, choices: Sequence[str], limits: Limits) -> list[Button]:
    """The choices as buttons of the reply `reply_uuid`, or none when the channel cannot show them all (then they
    go as numbered lines, `numbered`)."""
    too_long = limits.chars is not None and any(len(choice) > limits.chars for choice in choices)
    if len(choices) > limits.most or too_long:
        return []
    return [Button(token(reply_uuid, index), choice) for index, choice in enumerate(choices)]


def numbered(reply: Reply, choices: Sequence[str]) -> Reply:
    """The reply with its choices as a numbered list at its end (a channel that cannot show them as buttons)."""
    if not choices:
        return reply
    lines = "\n".join(f"{number}. {markdown_escaped(choice)}" for number, choice in enumerate(choices, 1))
    return Reply(f"{reply.text}\n\n{lines}" if reply.text else lines, reply.links)


def read_token(given: str) -> tuple[str, int] | None:
    """A token's reply uuid and choice number; None for what is not a token."""
    reply_uuid, colon, index = given.partition(":")
    if not colon or len(reply_uuid) != _UUID_CHARS or not (index.isascii() and index.isdigit()) or len(index) > 2:
        return None
    return reply_uuid, int(index)
