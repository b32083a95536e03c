"""A message as the hosted API shows it, its citations, and the session's plain-text transcript.

The official SDK builds `ChatMessage(**message)` and `ChatMessageCitation(**entry)`: one key more or less breaks
it, so a message carries exactly `MESSAGE_KEYS` and a `cite_data_json` entry exactly `CITATION_KEYS` (COMPAT.md).
A stored citation keeps its source's `reference_source_link` as well; on a message that link (else a web page's own
address) is given as `meta_json.citation_links` (`{marker: url}`), a meta object being where our extensions go.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from botyard.chat.feedback.schemas import Feedback
from botyard.chat.schemas import Message as MessageOut
from botyard.db.base import iso
from botyard.models import Message, MessageKind, MessageMeta
from botyard.session_documents.schemas import DocumentRef

CITATION_KEYS = ("data_source_uuid", "title", "text", "file_name", "type")
CITATION_LINKS = "citation_links"
"""The `meta_json` key of a message's citation links (ours: the SDK reads `meta_json` as an opaque string)."""


@dataclass(frozen=True)
class MessageContext:
    """What a message shows beyond its own row: its session's tags (the `labels`), the background jobs still
    pending for it (`background_pending_tasks`), the end user's verdict on it (`feedback_json`) and the session
    documents it used (`session_documents`)."""

    labels: Sequence[str] = ()
    pending_tasks: int = 0
    feedback: Feedback | None = None
    documents: Sequence[DocumentRef] = ()
    """The session documents the message used, as `{uuid, name}`, in the order they were given to the model."""


def citation_link(entry: Mapping[str, Any]) -> str | None:
    """Where a citation links to: the source's reference link, else a web page's own address; http(s) only, else
    nothing. The browser applies the same rule (`web/static/shared/citations.js`)."""
    link = entry.get("reference_source_link")
    if not link and entry.get("type") == "link":
        link = entry.get("file_name")
    return link if isinstance(link, str) and link.lower().startswith(("https://", "http://")) else None


def public_citations(cite_data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The stored citations with exactly the keys the SDK accepts (a missing one reads as "")."""
    return {
        marker: {key: entry.get(key, "") for key in CITATION_KEYS}
        for marker, entry in cite_data.items()
        if isinstance(entry, Mapping)
    }


def citation_links(cite_data: Mapping[str, Any]) -> dict[str, str]:
    """Each stored citation's link (`citation_link`), for those that have one."""
    found = {marker: citation_link(entry) for marker, entry in cite_data.items() if isinstance(entry, Mapping)}
    return {marker: link for marker, link in found.items() if link is not None}


def _meta_json(message: Message) -> str:
    meta = MessageMeta.of(message).dump()
    links = citation_links(message.cite_data or {})
    if links:
        meta[CITATION_LINKS] = links
    return json.dumps(meta)


def message_to_wire(message: Message, context: MessageContext) -> MessageOut:
    """The message with exactly the hosted keys. Botyard has no frustration detection: that key carries the hosted
    empty value. `feedback_json` is the end user's verdict (`chat.feedback`)."""
    return {
        "uuid": message.uuid,
        "query": message.query,
        "response": message.response,
        "finish_reason": message.finish_reason,
        "cite_data_json": json.dumps(public_citations(message.cite_data or {})),
        "meta_json": _meta_json(message),
        "created_at": iso(message.created_at),
        "modified_at": iso(message.modified_at),
        "background_pending_tasks": context.pending_tasks,
        "detected_frustrations": "",
        "error_message": MessageMeta.of(message).error or "",
        "feedback_json": json.dumps(context.feedback or {}),
        "labels": list(context.labels),
        "session_documents": [dict(document) for document in context.documents],
        "ai_context_json": "{}",
    }


def transcript(messages: Sequence[Message]) -> str:
    """One line per turn, oldest first, joined by newlines (no blank line, no trailing newline; "" for none):
    `User: <query>` then `Assistant: <response>`. A line break inside a text becomes one space, so every line is
    exactly one turn. Live-chat rows say who spoke: an operator's reply is `Operator: ...`; an announcement has no
    `User:` line, and a user's message during a live chat no `Assistant:` line."""
    return "\n".join(line for message in messages for line in _transcript_lines(message))


def one_line(text: str) -> str:
    """`text` with each line break (and the blank space around it) as one space."""
    return " ".join(part.strip() for part in text.splitlines() if part.strip()) if text else ""


def _transcript_lines(message: Message) -> list[str]:
    kind = MessageMeta.of(message).kind
    user, assistant = f"User: {one_line(message.query)}", f"Assistant: {one_line(message.response)}"
    if kind == MessageKind.OPERATOR:
        return [f"Operator: {one_line(message.response)}"]
    if kind in (MessageKind.LIVE_CHAT_START, MessageKind.LIVE_CHAT_END):
        return [assistant]
    if kind in (MessageKind.LIVE_CHAT_USER, MessageKind.CONTACT_FORM):
        return [user]
    return [user, assistant]
