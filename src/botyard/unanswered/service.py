"""Unanswered questions' rules: recording, grouping for the owner, answering a group with a Q&A source, dismissing."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat import service as chat
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.embedding.base import Vectors, decode_vector
from botyard.errors import not_found
from botyard.models import Message, UnansweredQuestion, UnansweredReason, UnansweredStatus
from botyard.retrieval.retriever import Retriever
from botyard.sources import service as sources
from botyard.sources.schemas import QaCreate
from botyard.unanswered.grouping import group, normalised
from botyard.unanswered.repository import UnansweredRepository
from botyard.unanswered.schemas import (
    MAX_QUESTIONS,
    SAMPLES,
    Answered,
    Dismissed,
    UnansweredAnswer,
    UnansweredGroup,
    UnansweredGroups,
)


async def record(db: AsyncSession, question: UnansweredQuestion) -> None:
    """Keep a question for the owner (in the answer's own transaction)."""
    await UnansweredRepository(db).add(question)


def _searched(row: UnansweredQuestion) -> str:
    return row.resolved or row.question


def replied_after(replies: dict[str, list[Message]], session_uuid: str, moment: datetime) -> list[Message]:
    """The operators' replies of `replies` (by session, oldest first) in that session at or after `moment`."""
    since = moment.replace(tzinfo=None)
    return [row for row in replies.get(session_uuid, []) if row.created_at.replace(tzinfo=None) >= since]


async def stored_or_embedded(
    retriever: Retriever, stored: bytes | None, stored_by: str | None, searched: str
) -> Vectors | None:
    """The vector an answer stored (`stored`, by the embedder `stored_by`) if this process's embedder made it; else
    `searched` embedded now; None without an embedder."""
    embedder = retriever.embedder
    if embedder is None:
        return None
    if stored is not None and stored_by == embedder.name:
        return decode_vector(stored)
    return await retriever.embed_query(searched)


async def list_groups(
    db: AsyncSession,
    retriever: Retriever,
    account_uuid: str,
    chatbot_uuid: str,
    window: tuple[datetime | None, datetime | None],
    page: tuple[int, int],
) -> UnansweredGroups:
    """The chatbot's open questions asked in `window`, grouped; `page` is (limit, offset) over the groups, the
    most asked group first. The rows come newest first, so of wordings asked as often the newest leads."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    rows = await UnansweredRepository(db).open_questions(chatbot.uuid, *window, MAX_QUESTIONS + 1)
    capped, rows = len(rows) > MAX_QUESTIONS, rows[:MAX_QUESTIONS]
    replies = await chat.operator_replies(db, list({row.session_uuid for row in rows}))
    rows = [row for row in rows if not _taken(row, replies)]
    vectors = [await stored_or_embedded(retriever, row.vector, row.embedder, _searched(row)) for row in rows]
    own = [await _own_vector(retriever, row, vector) for row, vector in zip(rows, vectors, strict=True)]
    parts = retriever.embedder.parts if retriever.embedder is not None else ()
    # A few tenths of a second of numpy for thousands of questions: off the event loop, which streams answers.
    texts, searched = [row.question for row in rows], [_searched(row) for row in rows]
    grouped = await asyncio.to_thread(group, texts, vectors, parts, searched, own)
    groups = [_to_wire([rows[index] for index in members]) for members in grouped]
    groups.sort(key=lambda found: (found["count"], found["last_asked"]), reverse=True)
    limit, offset = page
    return {"groups": groups[offset : offset + limit], "total": len(groups), "questions": len(rows), "capped": capped}


def _taken(row: UnansweredQuestion, replies: dict[str, list[Message]]) -> bool:
    """A hand-off a person took and answered: it went right, no question left unanswered."""
    return row.reason == UnansweredReason.HANDED_OFF and bool(replied_after(replies, row.session_uuid, row.created_at))


async def _own_vector(retriever: Retriever, row: UnansweredQuestion, searched: Vectors | None) -> Vectors | None:
    """The vector of the question as asked, when it was searched as something else (a follow-up); else None."""
    if searched is None or _searched(row).strip() == row.question.strip():
        return None
    return await retriever.embed_query(row.question)


def _to_wire(rows: Sequence[UnansweredQuestion]) -> UnansweredGroup:
    """A group from its rows (newest first), the leader's first."""
    wordings = Counter(normalised(row.question) for row in rows)
    leader = rows[0]
    variants: dict[str, str] = {}
    for row in sorted(rows[1:], key=lambda row: -wordings[normalised(row.question)]):
        key = normalised(row.question)
        if key != normalised(leader.question) and key not in variants and len(variants) < SAMPLES:
            variants[key] = row.question
    by_time = sorted(rows, key=lambda row: row.created_at, reverse=True)
    languages = Counter(row.language for row in rows if row.language)
    return {
        "uuid": leader.uuid,
        "question": leader.question,
        "resolved": leader.resolved,
        "count": len(rows),
        "reasons": dict(Counter(row.reason for row in rows)),
        "language": languages.most_common(1)[0][0] if languages else None,
        "first_asked": iso(by_time[-1].created_at),
        "last_asked": iso(by_time[0].created_at),
        "variants": list(variants.values()),
        "session_uuids": list(dict.fromkeys(row.session_uuid for row in by_time))[:SAMPLES],
        "question_uuids": [row.uuid for row in rows],
    }


async def _open(db: AsyncSession, account_uuid: str, chatbot_uuid: str, uuids: list[str]) -> list[UnansweredQuestion]:
    """Those of the questions still open, in the order given; the 404 a missing chatbot gets, or, when none is open
    (all answered or dismissed meanwhile, or not this chatbot's), the 404 of a missing question."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    found = {row.uuid: row for row in await UnansweredRepository(db).open_of(chatbot.uuid, uuids)}
    if not found:
        raise not_found("Unanswered question")
    return [found[uuid] for uuid in dict.fromkeys(uuids) if uuid in found]


async def answer(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: UnansweredAnswer, now: datetime
) -> Answered:
    """Add the owner's answer as a Q&A source (processed and indexed as any) and mark the questions answered."""
    rows = await _open(db, account_uuid, chatbot_uuid, body.question_uuids)
    qa = QaCreate(
        question=body.question or rows[0].question,
        answer=body.answer,
        reference_source_link=body.reference_source_link,
    )
    source = await sources.create_qa(db, account_uuid, chatbot_uuid, qa)
    uuids = [row.uuid for row in rows]
    resolved = await UnansweredRepository(db).close(uuids, UnansweredStatus.ANSWERED, now, source.uuid)
    return {"data_source": sources.to_wire(source), "resolved": resolved}


async def dismiss(db: AsyncSession, account_uuid: str, chatbot_uuid: str, uuids: list[str], now: datetime) -> Dismissed:
    """Mark the questions dismissed: they leave the list, and nothing is added to the knowledge."""
    rows = await _open(db, account_uuid, chatbot_uuid, uuids)
    dismissed = await UnansweredRepository(db).close([row.uuid for row in rows], UnansweredStatus.DISMISSED, now)
    return {"dismissed": dismissed}
