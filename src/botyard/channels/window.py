"""The 24-hour window of Meta's channels, a pure rule: a business may write freely to a customer only within 24
hours of the customer's last message (WhatsApp, Messenger, Instagram). After it, WhatsApp takes only an approved
template, and Messenger and Instagram only a person's reply tagged `HUMAN_AGENT`, within 7 days.

The window is read from the conversation's latest message of the customer's (its event's arrival). The Inbox reads
the same rule from the session's last customer message (`live.channel_window`: the Inbox shows
`channel_window_closes_at`); the hours and the types are `models.channel`'s, for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from botyard.models.channel import HUMAN_AGENT_WINDOW, MESSAGING_WINDOW, WINDOWED_TYPES

OPEN_FOR = MESSAGING_WINDOW
HUMAN_AGENT_FOR = HUMAN_AGENT_WINDOW
TEMPLATE_PARAMETER_CHARS = 1000
"""What of the reply's text fills a template's parameter (Meta refuses a body over 1,024 characters)."""
WINDOWED = WINDOWED_TYPES
CLOSED_WHATSAPP = (
    "the customer's last message was more than 24 hours ago, and WhatsApp then takes only an approved template "
    "message: choose one in the channel's settings.template (its name and language), or wait for the customer to "
    "write again"
)


def closed_messenger(kind: str) -> str:
    return (
        f"the customer's last message was more than 24 hours ago, and {kind.capitalize()} then takes only a "
        "person's reply (tagged HUMAN_AGENT) within 7 days of it: an operator can still answer until then; "
        "after, wait for the customer to write again"
    )


@dataclass(frozen=True)
class Window:
    open: bool
    closes_at: datetime | None
    """None: no customer message is known (nothing may be sent free-form)."""
    human_agent: bool
    """A person's reply may still go (Messenger, Instagram: `HUMAN_AGENT`, 7 days)."""


def of(kind: str, last_customer_at: datetime | None, now: datetime) -> Window:
    """The window of a conversation whose customer last wrote at `last_customer_at`."""
    if kind not in WINDOWED:
        return Window(True, None, True)
    if last_customer_at is None:
        return Window(False, None, False)
    closes = last_customer_at + OPEN_FOR
    return Window(now < closes, closes, now < last_customer_at + HUMAN_AGENT_FOR)
