"""Whether a message's documents fit the answering model's budget, and the exact replies when they do not.

Documents go to the model whole or not at all (a cut contract reads as a different contract). `room` is what the
prompt has left for documents once the agent's prompt and the question are in (`answering.turn.prepare`); history and
retrieved passages share what the documents leave.

- New documents that do not fit alone: `TOO_LONG`. With the session's earlier documents: `TOO_LONG_WITH_EARLIER`.
  Either way the refused documents do not join the session, so they cannot poison its later messages; the earlier
  documents stay.
- A message without new documents keeps the newest earlier documents that fit (a longer question, or an agent with
  a smaller model, can leave less room than when they joined): the session goes on answering.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass

TOO_LONG = "The uploaded file(s) are too long, please reduce the length and try again."
TOO_LONG_WITH_EARLIER = (
    "The uploaded file(s) are too long, please reduce the length and try again, or start a new chat session."
)
IMAGE_TOKENS = 765
"""What an image is counted as: OpenAI's price of a 1024x1024 image in high detail (other providers are close)."""
DOCUMENT_OVERHEAD = 16
"""Tokens of the block around each document in the prompt (its delimiters and name)."""


@dataclass(frozen=True)
class AttachedDocument:
    """A session document as the answer uses it."""

    uuid: str
    name: str
    text: str
    tokens: int
    content_type: str = "text/plain"
    image: bytes | None = None

    @property
    def cost(self) -> int:
        return self.tokens + DOCUMENT_OVERHEAD

    @property
    def data_url(self) -> str | None:
        """The image as a `data:` URL (what OpenAI-compatible servers take as an image part); None for text."""
        if self.image is None:
            return None
        return f"data:{self.content_type};base64,{base64.b64encode(self.image).decode('ascii')}"


@dataclass(frozen=True)
class Admission:
    documents: list[AttachedDocument]
    """What the message uses, in the order they joined the session."""
    refusal: str | None = None
    """The exact reply when the new documents do not fit (nothing else is answered then)."""


def cost(documents: Sequence[AttachedDocument]) -> int:
    return sum(document.cost for document in documents)


def admit(new: Sequence[AttachedDocument], earlier: Sequence[AttachedDocument], room: int) -> Admission:
    """The documents a message uses, or the refusal (see the module docstring)."""
    known = {document.uuid for document in earlier}
    fresh = [document for document in new if document.uuid not in known]
    if fresh:
        if cost(fresh) > room:
            return Admission([], TOO_LONG)
        if cost(earlier) + cost(fresh) > room:
            return Admission([], TOO_LONG_WITH_EARLIER)
        return Admission([*earlier, *fresh])
    kept: list[AttachedDocument] = []
    used = 0
    for document in reversed(earlier):
        if used + document.cost > room:
            break
        kept.insert(0, document)
        used += document.cost
    return Admission(kept)
