"""The review queue: every answer the owner should look at, grouped by meaning, most met first; fixed or accepted in
one step.

An answer is in the queue when it was refused (nothing in the knowledge, a model's no-answer sentence, no agent),
unsure (`meta_json.confidence` `low`, or weak evidence), handed to a person (a human-escalation agent replied), or
rated down by the visitor. The first three are the rows `answering.turn.gaps` writes with the answer; a thumbs-down
is the verdict itself (`message_feedback`), so the queue needs no second write on the visitor's click. Closing an
item writes its row's status (a thumbs-down without a row gets a closed one); a thumbs-down given after its item was
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

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat import service as chat
from botyard.chat.feedback import service as feedback
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.models import (
    Message,
    UnansweredQuestion,
    UnansweredReason,
    UnansweredStatus,
)
from botyard.retrieval.retriever import Retriever
from botyard.unanswered.grouping import group, normalised
from botyard.unanswered.pairs import Pairs, quoted, readings
from botyard.unanswered.repository import UnansweredRepository
from botyard.unanswered.schemas import (
    MAX_QUESTIONS,
    ReviewGroup,
    ReviewGroups,
    ReviewItem,
    ReviewPair,
    ReviewReason,
)
from botyard.unanswered.service import replied_after, stored_or_embedded

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


def from_row(row: UnansweredQuestion) -> Entry:
    reason = REASONS.get(row.reason, "refused")
    return Entry(
        row.message_uuid, row.session_uuid, row.question, row.resolved or row.question, reason, row.created_at,
        row.vector, row.embedder,
    )  # fmt: skip


def reopened(row: UnansweredQuestion | None, rated_at: datetime) -> bool:
    """Whether a thumbs-down given at `rated_at` is open: no closed row, or one closed before the verdict."""
    if row is None or row.status == UnansweredStatus.OPEN:
        return True
    return row.resolved_at is None or _naive(row.resolved_at) < _naive(rated_at)


def _naive(moment: datetime) -> datetime:
    return moment.replace(tzinfo=None)


def _answered_by_a_person(entry: Entry, replies: dict[str, list[Message]]) -> bool:
    return bool(replied_after(replies, entry.session_uuid, entry.asked_at))


async def _open_entries(
    db: AsyncSession, chatbot_uuid: str, window: tuple[datetime | None, datetime | None]
) -> tuple[dict[str, Entry], bool]:
    """The open items asked in `window`, by message uuid, and whether some were left out (`MAX_QUESTIONS`)."""
    repository = UnansweredRepository(db)
    rows = await repository.open_questions(chatbot_uuid, *window, MAX_QUESTIONS + 1)
    downs = await feedback.thumbs_down(db, chatbot_uuid, MAX_QUESTIONS + 1)
    capped = len(rows) > MAX_QUESTIONS or len(downs) > MAX_QUESTIONS
    entries = {row.message_uuid: from_row(row) for row in rows[:MAX_QUESTIONS]}
    start, end = window
    downs = [
        (verdict, message)
        for verdict, message in downs[:MAX_QUESTIONS]
        if (start is None or _naive(message.created_at) >= _naive(start))
        and (end is None or _naive(message.created_at) <= _naive(end))
    ]
    recorded = {row.message_uuid: row for row in await repository.of_messages(chatbot_uuid, [m.uuid for _, m in downs])}
    for verdict, message in downs:
        if not reopened(recorded.get(message.uuid), verdict.created_at):
            continue
        found = entries.get(message.uuid)
        if found is not None:
            found.reason = "thumbs_down"  # the visitor's own verdict says more than ours
            continue
        row = recorded.get(message.uuid)
        entry = from_row(row) if row is not None else None
        entries[message.uuid] = Entry(
            message.uuid, message.session_uuid, message.query, entry.searched if entry else message.query,
            "thumbs_down", message.created_at, entry.vector if entry else None, entry.embedder if entry else None,
        )  # fmt: skip
    return entries, capped


def _item(
    entry: Entry, message: Message | None, replies: dict[str, list[Message]], pair: ReviewPair | None
) -> ReviewItem:
    later = replied_after(replies, entry.session_uuid, entry.asked_at)
    quoted_first = quoted(message)
    return {
        "question": entry.question,
        "reply": message.response if message is not None else "",
        "session_uuid": entry.session_uuid,
        "message_uuid": entry.message_uuid,
        "reason": entry.reason,
        "asked_at": iso(entry.asked_at),
        "qa_source_uuid": quoted_first[0] if quoted_first else None,
        "operator_reply": later[0].response if later else None,
        "qa_pair": pair,
    }


def _group(
    entries: Sequence[Entry],
    messages: dict[str, Message],
    replies: dict[str, list[Message]],
    pairs: dict[str, ReviewPair | None],
) -> ReviewGroup:
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
        "items": [
            _item(entry, messages.get(entry.message_uuid), replies, pairs[entry.message_uuid]) for entry in newest
        ],
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
    replies = await chat.operator_replies(db, list({entry.session_uuid for entry in found.values()}))
    # A hand-off a person took and answered went right: no gap of the knowledge, and not in the queue.
    kept = [
        entry
        for entry in found.values()
        if not (entry.reason == "handed_off" and _answered_by_a_person(entry, replies))
    ]
    entries = sorted(kept, key=lambda entry: _naive(entry.asked_at), reverse=True)
    vectors = [await stored_or_embedded(retriever, entry.vector, entry.embedder, entry.searched) for entry in entries]
    asked = [
        await readings(retriever, entry.question, entry.searched, vector)
        for entry, vector in zip(entries, vectors, strict=True)
    ]
    parts = retriever.embedder.parts if retriever.embedder is not None else ()
    texts, searched = [entry.question for entry in entries], [entry.searched for entry in entries]
    grouped = await asyncio.to_thread(group, texts, vectors, parts, searched, [reading.own for reading in asked])
    messages = await chat.messages_by_uuids(db, [entry.message_uuid for entry in entries])
    quoting = {uuid: quoted(message) for uuid, message in messages.items()}
    pairs = await Pairs.quoted_by(db, retriever, chatbot.uuid, [uuid for found in quoting.values() for uuid in found])
    shown = {
        entry.message_uuid: await pairs.shown(reading, quoting.get(entry.message_uuid, []))
        for entry, reading in zip(entries, asked, strict=True)
    }
    groups = [_group([entries[index] for index in members], messages, replies, shown) for members in grouped]
    groups.sort(key=lambda found: (found["visitors"], found["count"], found["items"][0]["asked_at"]), reverse=True)
    limit, offset = page
    return {"groups": groups[offset : offset + limit], "total": len(groups), "items": len(entries), "capped": capped}
