from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field, PlainValidator, StringConstraints, WithJsonSchema
from typing_extensions import TypedDict

from botyard.schemas import RequestModel

VariableName = Annotated[str, StringConstraints(min_length=1, max_length=200)]
VariableValue = str | int | float | bool

_EPOCH = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
# An unencoded `+` in a query string arrives as a space: "2024-07-25T10:00:00 02:00" meant "+02:00".
_SPACED_OFFSET = re.compile(r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?) (\d{2}(:?\d{2})?)$")


def parse_timestamp(value: object) -> datetime | None:
    """A moment given as ISO 8601 (`Z` or an offset; no zone = UTC; a date alone = that day's 00:00:00Z) or as unix
    epoch seconds (int or float); returned timezone-aware, in UTC. An empty value is "not given"."""
    text = str(value).strip()
    if not text:
        return None
    try:
        if _EPOCH.match(text):
            return datetime.fromtimestamp(float(text), UTC)
        moment = datetime.fromisoformat(_SPACED_OFFSET.sub(r"\1+\4", text))
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
    except (ValueError, OverflowError, OSError) as exc:
        raise ValueError("must be an ISO 8601 timestamp or unix epoch seconds") from exc


TimestampParam = Annotated[
    datetime | None,
    PlainValidator(parse_timestamp),
    WithJsonSchema(
        {
            "anyOf": [{"type": "string"}, {"type": "number"}],
            "description": "ISO 8601 (`2024-07-25T21:19:01Z`, an offset, or a date alone) or unix epoch seconds.",
        }
    ),
]


class SessionCreate(RequestModel):
    initial_variables: dict[VariableName, VariableValue] | None = Field(
        default=None, description="Variable values the conversation starts with: strings, numbers or booleans."
    )


class MessageCreate(RequestModel):
    query: Annotated[str, StringConstraints(min_length=1, max_length=100_000)] = Field(
        description="The user's message."
    )
    session_document_uuids: list[str] | None = Field(
        default=None,
        max_length=100,
        description="Session documents (`/session-document/upload`) that join the conversation from this message on.",
    )


class MessageReply(TypedDict):
    response: str


class MessageUuids(RequestModel):
    """Bulk delete: unknown, malformed or foreign uuids are reported per uuid (422 `unknown_uuids`)."""

    uuids: list[str]


class SessionSummary(TypedDict):
    uuid: str
    created_at: str
    modified_at: str


class Session(TypedDict):
    uuid: str
    created_at: str
    modified_at: str
    meta: dict[str, Any]


class Message(TypedDict):
    """A message with exactly the keys of the hosted service (the official SDK's `ChatMessage(**message)`)."""

    uuid: str
    query: str
    response: str
    finish_reason: str
    cite_data_json: str
    meta_json: str
    created_at: str
    modified_at: str
    background_pending_tasks: int
    detected_frustrations: str
    error_message: str
    feedback_json: str
    labels: list[str]
    session_documents: list[Any]
    ai_context_json: str
