from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints
from typing_extensions import TypedDict

from botyard.schemas import RequestModel

Shortcut = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_-]{1,64}$")]
"""What follows `/` in the reply box: lower-case letters, digits, `-` and `_`, at most 64."""
ReplyText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20_000)]


class CannedReplyCreate(RequestModel):
    shortcut: Shortcut
    text: ReplyText


class CannedReplyUpdate(RequestModel):
    shortcut: Shortcut | None = None
    text: ReplyText | None = None


class CannedReplyOut(TypedDict):
    """A reply the team inserts with `/shortcut`; `{{contact.name}}` (and `.email`, `.phone`) in its text is the
    conversation's contact, filled in by the dashboard where it is known."""

    uuid: str
    shortcut: str
    text: str
    created_at: str
    modified_at: str


class CannedReplyDeleted(TypedDict):
    uuid: str
    deleted: bool
