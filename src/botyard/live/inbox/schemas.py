from __future__ import annotations

from typing_extensions import TypedDict

from botyard.chat.history.schemas import ConversationChannel


class InboxSession(TypedDict):
    """A conversation in the operators' inbox: it asked for a person, or an operator has it (not a hosted object)."""

    uuid: str
    created_at: str
    modified_at: str
    """The last activity: its last question, answer or live-chat row."""
    human_requested: bool
    live_chat: bool
    waiting_since: str | None
    """When it asked for a person, while it waits for one (null once an operator has it, or when nobody asked)."""
    preview: str
    """The message that asked for a person, else the first question (one line, at most 200 characters)."""
    unread: int
    """The visitor's messages written since an operator last opened it (`POST /session/{uuid}/seen`)."""
    seen_at: str | None
    """When an operator last opened it (null: never)."""
    tags: list[str]
    channel: ConversationChannel | None
    """The channel it is held on, with the customer's id and name there (null: the widget or the API)."""
    channel_type: str | None
    """The channel the customer writes on (`whatsapp`, `telegram`, ...); null: the widget or the API."""
    channel_window_closes_at: str | None
    """WhatsApp, Messenger, Instagram: when Meta's 24-hour window closes (24 hours after the customer's last
    message; after it only a template, or a person's tagged reply, reaches them); null elsewhere."""


class Inbox(TypedDict):
    unread: int
    """The unread messages of all the listed conversations."""
    sessions: list[InboxSession]
    """The waiting ones first, longest waiting first; then the live ones, latest activity first."""


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
