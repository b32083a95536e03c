"""The shapes of Zapier's and Make's routes: a message asked (the hosted service's `{query, session_uuid?}`), the
stored message answered with its session, a REST hook's subscription, and the connection check's `data.email`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints
from typing_extensions import TypedDict

from botyard.chat.schemas import Message
from botyard.models import WebhookEvent
from botyard.schemas import RequestModel

Platform = Literal["zapier", "make"]
HookEvent = Literal[
    "human_requested",
    "live_chat_started",
    "live_chat_ended",
    "variables_collected",
    "feedback",
    "source_failed",
    "test_run_finished",
    "contact_form_sent",
]
"""What a Zap or a scenario can subscribe to: the webhooks' events (`outbox.events`), `ping` aside."""
EVENTS = frozenset(event.value for event in WebhookEvent) - {WebhookEvent.PING.value}


class IntegrationMessageCreate(RequestModel):
    query: Annotated[str, StringConstraints(min_length=1, max_length=100_000)] = Field(
        description="The question, as a visitor would write it."
    )
    session_uuid: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = Field(
        default=None,
        description="A session of this chatbot to continue (its earlier messages are the context); none: a new one.",
    )


class IntegrationMessage(Message):
    """The stored message (the hosted keys) and the session it is in (to continue it with the next step)."""

    session_uuid: str


class PolledMessage(IntegrationMessage):
    id: str
    """The message's uuid: what Zapier deduplicates polled items by."""


class HookSubscribe(RequestModel):
    target_url: Annotated[str, StringConstraints(min_length=1, max_length=2048, strip_whitespace=True)] = Field(
        description="Where the platform wants the event POSTed (Zapier's `bundle.targetUrl`, Make's webhook URL)."
    )
    event: HookEvent = Field(description="The event to be told of.")


class HookSubscription(TypedDict):
    id: str
    """What unsubscribing names (`.../unsubscribe/{id}`)."""
    uuid: str
    platform: str
    event: str
    target_url: str
    created_at: str


class UserEmail(TypedDict):
    email: str


class UserInfo(TypedDict):
    """What Make's connection check reads: `data.email`."""

    data: UserEmail
