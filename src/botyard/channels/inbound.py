"""What a provider's delivery says, in the words every channel shares: the pure part of ingress.

A provider module reads its delivery into one `Delivery` (its own id, and a message, a button pressed, or nothing
to answer), after the signature was checked on the raw bytes. A body that is not the provider's shape is a
`NotTheShape`: the route answers 200 so that the provider stops retrying, and logs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class NotTheShape(ValueError):
    """A signed body that is not the provider's shape of a delivery."""


@dataclass(frozen=True)
class Said:
    """A message of an external user, in a conversation (`thread`: the chat it was written in)."""

    user_id: str
    user_name: str
    thread: str
    text: str

    @property
    def conversation(self) -> str:
        """One conversation per (user, thread): a group's members each have their own."""
        return f"{self.thread}:{self.user_id}"


@dataclass(frozen=True)
class Pressed:
    """A button an external user pressed: the choice's `token` (`buttons.token`: which reply, which choice), read
    into the message it stands for when it is stored (`buttons.pressed`). `callback_query_id`: Telegram's, which
    the answer's job answers (`answerCallbackQuery`) so that the button stops showing that it is waiting."""

    user_id: str
    user_name: str
    token: str
    callback_query_id: str = ""


@dataclass(frozen=True)
class Delivery:
    """One delivery: `external_id` is the provider's own id of it (what makes a repeat one), `position` its place
    in the provider's order, `said` the message to answer (None: an edit, a bot's message, another kind of update)
    or `pressed` the button pressed; `details` what the provider told beside the text (`channel_event.details`:
    WhatsApp's number as Meta gave it, an email's headers)."""

    external_id: str
    position: int
    said: Said | None
    pressed: Pressed | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Status:
    """How far a message the provider took has gone (`channel_receipt`): `status` sent, delivered, read or failed
    (`error`: the provider's code and title, Meta's or Twilio's), under the provider's id of the message."""

    provider_id: str
    status: str
    error: str = ""
