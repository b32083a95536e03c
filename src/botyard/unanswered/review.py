"""The review queue: every answer the owner should look at, grouped by meaning, most met first; fixed or accepted in
one step.

An answer is in the queue when it was refused (nothing in the knowledge, a model's no-answer sentence, no agent),
unsure (`meta_json.confidence` `low`, or weak evidence), handed to a person (a human-escalation agent replied), or
rated down by the visitor. The first three are the rows `answering.gaps` writes with the answer; a thumbs-down is the
verdict itself (`message_feedback`), so the queue needs no second write on the visitor's click. Closing an item
writes its row's status (a thumbs-down without a row gets a closed one); a thumbs-down given after its item was
closed brings it back.

Groups are made as the unanswered questions' are (`grouping`: the same words, or vectors on one subject, so the same
question in other languages joins too), and ordered by how many visitors (sessions) met them.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat import service as chat
from botyard.chat.feedback import service as feedback
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.errors import not_found
from botyard.models import (
    DataSource,
    Message,
    Rating,
    SourceType,
    UnansweredQuestion,
    UnansweredReason,
    UnansweredStatus,
)
from botyard.retrieval.retriever import Retriever
from botyard.sources import content
from botyard.sources import service as sources
from botyard.sources.schemas import QaCreate, QaUpdate
from botyard.unanswered.grouping import group, normalised
from botyard.unanswered.repository import UnansweredRepository
from botyard.unanswered.schemas import (
    MAX_QUESTIONS,
    ReviewAccept,
    ReviewAccepted,
    ReviewFix,
    ReviewFixed,
    ReviewGroup,
    ReviewGroups,
    ReviewItem,
    ReviewReason,
)
from botyard.unanswered.service import stored_or_embedded

REASONS: dict[str, ReviewReason] = {
    UnansweredReason.REFUSED: "refused",
    UnansweredReason.MODEL_NO_ANSWER: "refused",
    UnansweredReason.NO_AGENT: "refused",
    UnansweredReason.LOW_CONFIDENCE: "unsure",
    UnansweredReason.HANDED_OFF: "handed_off",
    UnansweredReason.THUMBS_DOWN: "thumbs_down",
}


@dataclass
class Entry:
    """One open item while the queue is read: its question, how it was searched, and why it is here."""

    message_uuid: str
    session_uuid: str
    question: str
    searched: str
    reason: ReviewReason
    asked_at: datetime
    vector: bytes | None = None
    embedder: str | None = None


def _from_row(row: UnansweredQuestion) -> Entry:
    reason = REASONS.get(row.reason, "refused")
    return Entry(
        row.message_uuid, row.session_uuid, row.question, row.resolved or row.question, reason, row.created_at,
        row.vector, row.embedder,
    )  # fmt: skip


def _reopened(row: UnansweredQuestion | None, rated_at: datetime) -> bool:
    """Whether a thumbs-down given at `rated_at` is open: no closed row, or one closed before the verdict."""
    if row is None or row.status == UnansweredStatus.OPEN:
        return True
    return row.resolved_at is None or _naive(row.resolved_at) < _naive(rated_at)


def _naive(moment: datetime) -> datetime:
    return moment.replace(tzinfo=None)


async def _open_entries(
    db: AsyncSession, chatbot_uuid: str, window: tuple[datetime | None, datetime | None]
) -> tuple[dict[str, Entry], bool]:
    """The open items asked in `window`, by message uuid, and whether some were left out (`MAX_QUESTIONS`)."""
    repository = UnansweredRepository(db)
    rows = await repository.open_questions(chatbot_uuid, *window, MAX_QUESTIONS + 1)
    downs = await feedback.thumbs_down(db, chatbot_uuid, MAX_QUESTIONS + 1)
    capped = len(rows) > MAX_QUESTIONS or len(downs) > MAX_QUESTIONS
    entries = {row.message_uuid: _from_row(row) for row in rows[:MAX_QUESTIONS]}
    start, end = window
    downs = [
        (verdict, message)
        for verdict, message in downs[:MAX_QUESTIONS]
        if (start is None or _naive(message.created_at) >= _naive(start))
        and (end is None or _naive(message.created_at) <= _naive(end))
    ]
    recorded = {row.message_uuid: row for row in await repository.of_messages(chatbot_uuid, [m.uuid for _, m in downs])}
    for verdict, message in downs:
        if not _reopened(recorded.get(message.uuid), verdict.created_at):
            continue
        found = entries.get(message.uuid)
        if found is not None:
            found.reason = "thumbs_down"  # the visitor's own verdict says more than ours
            continue
        row = recorded.get(message.uuid)
        entry = _from_row(row) if row is not None else None
        entries[message.uuid] = Entry(
            message.uuid, message.session_uuid, message.query, entry.searched if entry else message.query,
            "thumbs_down", message.created_at, entry.vector if entry else None, entry.embedder if entry else None,
        )  # fmt: skip
    return entries, capped


def _qa_source(message: Message | None) -> str | None:
    """The Q&A source the reply quoted first, if any: its citations in marker order, else the sources it quoted
    without showing citations (`meta_json.quoted_sources`, offline)."""
    if message is None:
        return None
    cited: dict[str, Any] = message.cite_data or {}
    ordered = [cited[marker] for marker in sorted(cited, key=_marker_order)]
    quoted = message.meta.get("quoted_sources") if isinstance(message.meta, dict) else None
    for entry in [*ordered, *(quoted if isinstance(quoted, list) else [])]:
        if isinstance(entry, dict) and entry.get("type") == SourceType.QA and entry.get("data_source_uuid"):
            return str(entry["data_source_uuid"])
    return None


def _marker_order(marker: str) -> list[int]:
    return [int(part) for part in marker.split(".") if part.isdigit()]


def _item(entry: Entry, message: Message | None, replies: dict[str, list[Message]]) -> ReviewItem:
    later = [row for row in replies.get(entry.session_uuid, []) if _naive(row.created_at) >= _naive(entry.asked_at)]
    return {
        "question": entry.question,
        "reply": message.response if message is not None else "",
        "session_uuid": entry.session_uuid,
        "message_uuid": entry.message_uuid,
        "reason": entry.reason,
        "asked_at": iso(entry.asked_at),
        "qa_source_uuid": _qa_source(message),
        "operator_reply": later[0].response if later else None,
    }


def _group(entries: Sequence[Entry], messages: dict[str, Message], replies: dict[str, list[Message]]) -> ReviewGroup:
    """A group from its entries, the most asked wording leading; items newest first."""
    wordings = Counter(normalised(entry.question) for entry in entries)
    leader = max(entries, key=lambda entry: (wordings[normalised(entry.question)], _naive(entry.asked_at)))
    newest = sorted(entries, key=lambda entry: _naive(entry.asked_at), reverse=True)
    return {
        "uuid": leader.message_uuid,
        "question": leader.question,
        "count": len(entries),
        "visitors": len({entry.session_uuid for entry in entries}),
        "reasons": sorted({entry.reason for entry in entries}),
        "items": [_item(entry, messages.get(entry.message_uuid), replies) for entry in newest],
    }


async def list_review(
    db: AsyncSession,
    retriever: Retriever,
    account_uuid: str,
    chatbot_uuid: str,
    window: tuple[datetime | None, datetime | None],
    page: tuple[int, int],
) -> ReviewGroups:
    """The chatbot's open review groups asked in `window`, the most met first; `page` is (limit, offset)."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    found, capped = await _open_entries(db, chatbot.uuid, window)
    entries = sorted(found.values(), key=lambda entry: _naive(entry.asked_at), reverse=True)
    vectors = [await stored_or_embedded(retriever, entry.vector, entry.embedder, entry.searched) for entry in entries]
    parts = retriever.embedder.parts if retriever.embedder is not None else ()
    grouped = await asyncio.to_thread(group, [entry.question for entry in entries], vectors, parts)
    messages = await chat.messages_by_uuids(db, [entry.message_uuid for entry in entries])
    replies = await chat.operator_replies(db, [entry.session_uuid for entry in entries])
    groups = [_group([entries[index] for index in members], messages, replies) for members in grouped]
    groups.sort(key=lambda found: (found["visitors"], found["count"], found["items"][0]["asked_at"]), reverse=True)
    limit, offset = page
    return {"groups": groups[offset : offset + limit], "total": len(groups), "items": len(entries), "capped": capped}


async def _answers(db: AsyncSession, chatbot_uuid: str, uuids: Sequence[str]) -> list[Message]:
    """The chatbot's answers among `uuids`, in the order given; 404 when none is."""
    found = await chat.messages_of_chatbot(db, chatbot_uuid, uuids)
    if not found:
        raise not_found("Message")
    return [found[uuid] for uuid in dict.fromkeys(uuids) if uuid in found]


async def _close(
    db: AsyncSession,
    chatbot_uuid: str,
    answers: Sequence[Message],
    status: UnansweredStatus,
    now: datetime,
    source: DataSource | None = None,
) -> int:
    """Close the answers' review items; how many were open. A thumbs-down without a row gets a closed one."""
    repository = UnansweredRepository(db)
    uuids = [message.uuid for message in answers]
    rows = {row.message_uuid: row for row in await repository.of_messages(chatbot_uuid, uuids)}
    verdicts = await feedback.verdicts_of(db, uuids)
    rated_down = {uuid for uuid, verdict in verdicts.items() if verdict.rating == Rating.DOWN}
    was_open = sum(
        1
        for message in answers
        if (message.uuid in rows and rows[message.uuid].status == UnansweredStatus.OPEN)
        or (message.uuid in rated_down and _reopened(rows.get(message.uuid), verdicts[message.uuid].created_at))
    )
    source_uuid = source.uuid if source is not None else None
    await repository.settle([row.uuid for row in rows.values()], status, now, source_uuid)
    for message in answers:
        if message.uuid in rated_down and message.uuid not in rows:
            await repository.add(_closed_row(chatbot_uuid, message, status, now, source_uuid))
    return was_open


def _closed_row(
    chatbot_uuid: str, message: Message, status: UnansweredStatus, now: datetime, source_uuid: str | None
) -> UnansweredQuestion:
    return UnansweredQuestion(
        chatbot_uuid=chatbot_uuid,
        message_uuid=message.uuid,
        session_uuid=message.session_uuid,
        question=message.query,
        reason=UnansweredReason.THUMBS_DOWN.value,
        status=status.value,
        data_source_uuid=source_uuid,
        created_at=message.created_at,
        resolved_at=now,
    )


async def fix(db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: ReviewFix, now: datetime) -> ReviewFixed:
    """Write the right answer for the answers `body.message_uuids`: a new Q&A pair (or the edit of the chatbot's pair
    `data_source_uuid`), processed and indexed like any; their review items close."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    answers = await _answers(db, chatbot.uuid, body.message_uuids)
    if body.data_source_uuid is not None:
        if not await sources.in_chatbot(db, chatbot.uuid, [body.data_source_uuid]):
            raise not_found("Data source")
        edit = QaUpdate(question=body.question, answer=body.answer)
        source = await content.update_qa(db, account_uuid, body.data_source_uuid, edit)
    else:
        qa = QaCreate(
            question=body.question or answers[0].query,
            answer=body.answer,
            reference_source_link=body.reference_source_link,
        )
        source = await sources.create_qa(db, account_uuid, chatbot.uuid, qa)
    closed = await _close(db, chatbot.uuid, answers, UnansweredStatus.ANSWERED, now, source)
    return {"data_source": sources.to_wire(source), "closed": closed}


async def accept(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: ReviewAccept, now: datetime
) -> ReviewAccepted:
    """The answers are right as they are: their review items close, and nothing changes in the knowledge."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    answers = await _answers(db, chatbot.uuid, body.message_uuids)
    return {"closed": await _close(db, chatbot.uuid, answers, UnansweredStatus.ACCEPTED, now)}
