from __future__ import annotations

from typing_extensions import TypedDict


class SessionDocumentOut(TypedDict):
    """An uploaded session document. `tokens` is what it costs in a prompt (an image: a fixed estimate)."""

    uuid: str
    name: str
    content_type: str
    size: int
    tokens: int
    created_at: str


class DocumentRef(TypedDict):
    """A document as a message's `session_documents` lists it."""

    uuid: str
    name: str
