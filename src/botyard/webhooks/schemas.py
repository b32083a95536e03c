from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import Field, StringConstraints
from typing_extensions import TypedDict

from botyard.schemas import RequestModel

EventName = Literal[
    "human_requested",
    "live_chat_started",
    "live_chat_ended",
    "variables_collected",
    "feedback",
    "source_failed",
    "test_run_finished",
    "contact_form_sent",
]
"""The events a webhook may subscribe to (`ping` is sent by the test endpoint only)."""
EVENT_NAMES: tuple[EventName, ...] = (
    "human_requested",
    "live_chat_started",
    "live_chat_ended",
    "variables_collected",
    "feedback",
    "source_failed",
    "test_run_finished",
    "contact_form_sent",
)
Url = Annotated[str, StringConstraints(min_length=1, max_length=2048, strip_whitespace=True)]
Events = Annotated[list[EventName], Field(min_length=1, max_length=len(EVENT_NAMES))]


class WebhookCreate(RequestModel):
    url: Url = Field(description="Where events are POSTed: http or https, checked by the egress policy.")
    events: Events = Field(default_factory=lambda: list(EVENT_NAMES), description="The events to send; default all.")
    enabled: bool = True


class WebhookUpdate(RequestModel):
    url: Url | None = None
    events: Events | None = None
    enabled: bool | None = None


class Webhook(TypedDict):
    uuid: str
    chatbot_uuid: str
    url: str
    events: list[str]
    enabled: bool
    created_at: str
    modified_at: str
    secret: NotRequired[str]
    """Only when it is made (creation, rotation): store it then, it is never shown again."""


class Delivery(TypedDict):
    uuid: str
    webhook_uuid: str
    event_id: str
    """The `webhook-id` header: the same on every attempt."""
    event_type: str
    status: str
    """`pending` (`next_attempt_at` says when), `delivered`, `failed`."""
    attempts: int
    last_status_code: int | None
    last_error: str
    response_excerpt: str
    """The start of the receiver's last answer (at most 500 characters)."""
    next_attempt_at: str | None
    created_at: str
    finished_at: str | None
