from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints
from typing_extensions import TypedDict

from botyard.models.kinds import Rating

COMMENT_MAX_LENGTH = 1000
Comment = Annotated[str, StringConstraints(max_length=COMMENT_MAX_LENGTH, strip_whitespace=True)]

EXCERPT_LENGTH = 300
"""How much of the answer the owner's feedback list shows (the whole message is at `GET /message/{uuid}`)."""


class Feedback(TypedDict):
    """The end user's verdict on an answer: the message's `feedback_json` (as a JSON string; `"{}"` when none)."""

    rating: Rating
    comment: str
    """"" when none was given."""
    created_at: str
    """When this verdict was given (a replaced one's time is the replacement's)."""


class FeedbackEntry(TypedDict):
    """One rated answer in the owner's feedback list."""

    message_uuid: str
    session_uuid: str
    query: str
    response_excerpt: str
    rating: Rating
    comment: str
    created_at: str
