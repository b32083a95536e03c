from __future__ import annotations

from typing import Annotated, Literal

from pydantic import StringConstraints
from typing_extensions import TypedDict

RatingName = Literal["up", "down"]
"""`botyard.models.Rating` as the request bodies and query parameters accept it."""

COMMENT_MAX_LENGTH = 1000
Comment = Annotated[str, StringConstraints(max_length=COMMENT_MAX_LENGTH, strip_whitespace=True)]

EXCERPT_LENGTH = 300
"""How much of the answer the owner's feedback list shows (the whole message is at `GET /message/{uuid}`)."""


class Feedback(TypedDict):
    """The end user's verdict on an answer: the message's `feedback_json` (as a JSON string; `"{}"` when none)."""

    rating: RatingName
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
    rating: RatingName
    comment: str
    created_at: str
