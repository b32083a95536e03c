from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal, Self

from pydantic import StringConstraints, field_validator, model_validator
from typing_extensions import TypedDict

from botyard.chat.history.schemas import ConversationChannel
from botyard.models import ConversationStatus
from botyard.schemas import RequestModel


class Person(TypedDict):
    """A person of the team, as the inbox names them."""

    uuid: str
    name: str


class Taker(Person):
    """A person of the team who takes conversations, as the assignee choice lists them."""

    email: str
    role: str
    away: bool
    """Said they are away now (they may still be given a conversation)."""


class Team(TypedDict):
    people: list[Taker]
    """The account's owners, admins and operators, by name."""


class InboxContact(TypedDict):
    """Who writes (`contacts`): what the inbox shows of them."""

    uuid: str
    name: str
    email: str
    phone: str


class InboxSession(TypedDict):
    """A conversation in the operators' inbox: it asked for a person, or an operator has it (not a hosted object)."""

    uuid: str
    created_at: str
    modified_at: str
    """The last activity: its last question, answer or live-chat row."""
    human_requested: bool
    live_chat: bool
    waiting_since: str | None
    """When it asked for a person, while it waits for one (null once an operator has it live or it is assigned, or
    when nobody asked)."""
    preview: str
    """The message that asked for a person, else the first question (one line, at most 200 characters)."""
    unread: int
    """The customer's messages written since the caller last read it (`POST /session/{uuid}/seen`): a person's own
    mark; for an API key, the account-wide one."""
    seen_at: str | None
    """When the caller last read it (null: never)."""
    tags: list[str]
    channel: ConversationChannel | None
    """The channel it is held on, with the customer's id and name there (null: the widget or the API)."""
    channel_type: str | None
    """The channel the customer writes on (`whatsapp`, `telegram`, ...); null: the widget or the API."""
    channel_window_closes_at: str | None
    """WhatsApp, Messenger, Instagram: when Meta's 24-hour window closes (24 hours after the customer's last
    message; after it only a template, or a person's tagged reply, reaches them); null elsewhere."""
    status: ConversationStatus
    """Where the team's work stands, as of now (a snooze whose time has passed reads `open`)."""
    snoozed_until: str | None
    resolved_at: str | None
    assignee: Person | None
    """The person who has it (null: nobody)."""
    contact: InboxContact | None
    """Who writes (null: not known, e.g. an API conversation)."""
    last_message_at: str | None
    """The latest message of anyone (null: none yet)."""
    unanswered_since: str | None
    """The customer's oldest message nobody (the bot or a person) has answered yet (null: nothing unanswered)."""
    visitor_page: str
    """The page the widget's visitor was on when the conversation began (empty: not the widget, or not told)."""


class InboxCounts(TypedDict):
    """How many conversations each tab holds, under the request's `status`, `channel` and `q`."""

    mine: int
    unassigned: int
    waiting: int
    all: int


class Inbox(TypedDict):
    unread: int
    """The unread messages of all the listed conversations."""
    sessions: list[InboxSession]
    """Who waits longest first: those waiting for a person (the longest waiting first), then the open ones whose
    customer's last message is unanswered (the oldest first), then the rest (the latest activity first)."""
    counts: InboxCounts


class StatusChange(RequestModel):
    status: ConversationStatus
    snoozed_until: datetime | None = None
    """With `snoozed` only, and in the future (else 422 `snooze_time_invalid`); a time without a zone is UTC."""

    @field_validator("snoozed_until")
    @classmethod
    def _in_utc(cls, value: datetime | None) -> datetime | None:
        return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


class Assignment(RequestModel):
    """`{"user_uuid": "..."}` (or null: nobody), or `{"me": true}`: exactly one of the two."""

    user_uuid: Annotated[str, StringConstraints(max_length=64)] | None = None
    me: Literal[True] | None = None

    @model_validator(mode="after")
    def _one_of_the_two(self) -> Self:
        if self.me and "user_uuid" in self.model_fields_set:
            raise ValueError("give `user_uuid` or `me`, not both")
        if not self.me and "user_uuid" not in self.model_fields_set:
            raise ValueError("give `user_uuid` (a person, or null for nobody) or `me: true`")
        return self


class Work(TypedDict):
    """Where the team's work on a conversation stands."""

    session_uuid: str
    status: ConversationStatus
    snoozed_until: str | None
    resolved_at: str | None
    assignee: Person | None
    live_chat: bool
    human_requested: bool


class Seen(TypedDict):
    session_uuid: str
    seen_at: str


class WaitingSession(TypedDict):
    """A conversation of any of the account's chatbots that waits for a person (not a hosted object)."""

    chatbot_uuid: str
    chatbot_name: str
    session_uuid: str
    waiting_since: str | None
    preview: str
    """The message that asked for a person (or that was left after hours), on one line."""


class Waiting(TypedDict):
    waiting: int
    """How many are listed (at most `MAX_WAITING`)."""
    sessions: list[WaitingSession]
    """The longest waiting first."""


class ChannelRef(TypedDict):
    type: str
    name: str


class EarlierConversation(TypedDict):
    """Another conversation of the same contact, on any chatbot and channel of the account."""

    session_uuid: str
    chatbot_uuid: str
    chatbot_name: str
    channel_type: str | None
    """The channel's type; null: the widget or the API."""
    created_at: str
    modified_at: str
    preview: str
    """Its first question, on one line."""
    status: ConversationStatus


class Source(TypedDict):
    data_source_uuid: str | None
    title: str
    url: str | None
    """Where the citation links to (the source's reference link, else a web page's address); null: nowhere."""


class Answer(TypedDict):
    """One of the bot's answers in the conversation: how sure it was and what it quoted."""

    message_uuid: str
    confidence: str | None
    """`high`, `low` or `none` (null: not recorded, as for older answers)."""
    unsure: bool
    """Refused, or not sure of it (`low`, `none`)."""
    refused: bool
    sources: list[Source]


class Context(TypedDict):
    """What an operator sees beside a conversation."""

    session_uuid: str
    contact: InboxContact | None
    channel: ChannelRef | None
    """The channel it is held on (null: the widget or the API)."""
    visitor_page: str
    """The page the widget's visitor was on when it began ("" unknown)."""
    earlier: list[EarlierConversation]
    """The contact's other conversations, the latest first, at most 20."""
    answers: list[Answer]
    """The bot's answers, oldest first."""
