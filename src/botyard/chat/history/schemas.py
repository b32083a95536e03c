from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field
from typing_extensions import TypedDict

from botyard.schemas import RequestModel

PREVIEW_LENGTH = 200
"""How much of a conversation's first question the overview shows."""
MAX_RETENTION_DAYS = 3650


class ExportFormat(StrEnum):
    CSV = "csv"
    JSON = "json"


class ConversationChannel(TypedDict):
    """Where a conversation is held, when not in the widget or the API: the channel and its external user."""

    uuid: str
    user_id: str
    user_name: str


class Conversation(TypedDict):
    """One conversation in the owner's overview (not a hosted object: `/chatbot/{uuid}/sessions` keeps its shape)."""

    uuid: str
    created_at: str
    modified_at: str
    """The last activity: its last question, answer or live-chat row."""
    preview: str
    """The start of the first question (at most 200 characters), "" when there is none yet."""
    message_count: int
    refused_count: int
    """Answers that were refusals: the no-answer reply, attached documents too long, or a failed answer."""
    rated_up: int
    rated_down: int
    human_requested: bool
    live_chat: bool
    handed_off: bool
    """Ever handed to a person: asked for one (now or earlier), or an operator has it."""
    outcome: str | None
    """`resolved`, `unresolved` or `handed_off`, by the rules of docs/review.md; null while nothing was asked."""
    outcome_reason: str | None
    """Why it is unresolved or handed off: `no_answer`, `unsure`, `thumbs_down`, `failed`, `visitor_asked`,
    `operator`."""
    tags: list[str]
    channel: ConversationChannel | None
    """The channel the conversation is on (null: the widget or the API)."""


class ExportRow(TypedDict):
    """One line of a transcript export: a question, an answer, an operator's reply or an announcement."""

    session_uuid: str
    time: str
    role: str
    """`user`, `assistant`, `operator` or `announcement`."""
    text: str
    agent: str
    """The answering agent's name ("" for the user's rows, operators and announcements)."""
    refused: bool
    rating: str
    """The user's rating of this answer, `up` or `down`, "" when none."""


RetentionDays = Annotated[int, Field(ge=1, le=MAX_RETENTION_DAYS)]


class Retention(TypedDict):
    chatbot_uuid: str
    retention_days: int | None
    """Conversations without activity for longer are deleted (checked every hour); null: kept forever."""


class RetentionUpdate(RequestModel):
    retention_days: RetentionDays | None = Field(
        description="Delete conversations whose last activity is older than this many days (1 to 3650); "
        "null keeps them forever."
    )
