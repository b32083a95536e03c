from __future__ import annotations

from typing import Annotated, Literal

from pydantic import EmailStr, Field, StringConstraints
from typing_extensions import TypedDict

from botyard.schemas import RequestModel

Weekday = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
ClockTime = Annotated[str, StringConstraints(pattern=r"^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$")]
MAX_NOTIFY_EMAILS = 20


class OpenInterval(RequestModel):
    start: ClockTime
    end: ClockTime


class OfficeHoursUpdate(RequestModel):
    """Any of the office hours' fields; those not given stay as they are."""

    enabled: bool | None = Field(default=None, description="Off: a person is always promised.")
    timezone: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = Field(
        default=None, description="IANA name (`Europe/Paris`, `America/New_York`, `UTC`)."
    )
    week: dict[Weekday, Annotated[list[OpenInterval], Field(max_length=6)]] | None = Field(
        default=None,
        description="Replaces the whole week: each day's open intervals in local time, `24:00` allowed as an end; "
        "a day left out is closed.",
    )
    after_hours_message: Annotated[str, StringConstraints(max_length=2000)] | None = Field(
        default=None, description="The reply to a visitor asking for a person after hours (empty: the default)."
    )
    hand_off_requests: bool | None = Field(
        default=None,
        description="On (the default): a visitor who asks for a person is handed to the account's people who take "
        "conversations even when the chatbot has no human-escalation agent. Off: only such an agent hands off.",
    )


class Interval(TypedDict):
    start: str
    end: str


class OfficeHours(TypedDict):
    """A chatbot's office hours (not a hosted object)."""

    chatbot_uuid: str
    enabled: bool
    timezone: str
    week: dict[str, list[Interval]]
    """Every day, Monday first; a closed day has no interval."""
    after_hours_message: str
    """What a visitor asking for a person after hours is told (the default when none was set)."""
    open_now: bool
    """Whether a person is promised right now (always true while `enabled` is false)."""
    hand_off_requests: bool
    """Whether a request for a person is handed off without a human-escalation agent (on by default)."""


class NotificationsUpdate(RequestModel):
    emails: Annotated[list[EmailStr], Field(max_length=MAX_NOTIFY_EMAILS)] = Field(
        description="The operators' addresses, replacing the list (empty: nobody is emailed)."
    )


class Notifications(TypedDict):
    """Who hears by email of a visitor waiting for a person and of a message left after hours."""

    chatbot_uuid: str
    emails: list[str]
    mail_configured: bool
    """False while the service has no mail server (`BOTYARD_SMTP_HOST`): nothing is sent."""
    mail_status: str
    """In words: what is sent, or why nothing is."""
