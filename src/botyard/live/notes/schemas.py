from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints
from typing_extensions import TypedDict

from botyard.schemas import RequestModel


class NoteCreate(RequestModel):
    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20_000)]


class Note(TypedDict):
    """A private note of the team in a conversation (never shown to the customer)."""

    uuid: str
    session_uuid: str
    text: str
    author_uuid: str | None
    """The person who wrote it (null: an API key, or a person since removed)."""
    author_name: str
    created_at: str


class NoteDeleted(TypedDict):
    uuid: str
    deleted: bool
