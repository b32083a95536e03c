"""Fixing the review queue's answers: a fix writes the right answer as a new Q&A pair, or replaces the answer of the
question's own pair when the owner names it (`pairs`); "this answer is right" closes them as they are. Either closes
the answers' review items (a thumbs-down without a row gets a closed one).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat import service as chat
from botyard.chat.feedback import service as feedback
from botyard.chatbots.service import get_owned as get_owned_chatbot
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
from botyard.unanswered.pairs import Pairs, not_offered, quoted, readings
from botyard.unanswered.repository import UnansweredRepository
from botyard.unanswered.review import from_row, reopened
from botyard.unanswered.schemas import ReviewAccept, ReviewAccepted, ReviewFix, ReviewFixed
from botyard.unanswered.service import stored_or_embedded


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
        or (message.uuid in rated_down and reopened(rows.get(message.uuid), verdicts[message.uuid].created_at))
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


async def _offered(
    db: AsyncSession, retriever: Retriever, chatbot_uuid: str, answers: Sequence[Message], uuid: str
) -> bool:
    """Whether a fix of `answers` may replace the pair `uuid`: one of them quoted it, and its question is that
    answer's own (`pairs`), as the queue offered it."""
    pairs = await Pairs.quoted_by(db, retriever, chatbot_uuid, [uuid])
    rows = {
        row.message_uuid: row
        for row in await UnansweredRepository(db).of_messages(chatbot_uuid, [m.uuid for m in answers])
    }
    for message in answers:
        if uuid not in quoted(message):
            continue
        row = rows.get(message.uuid)
        entry = from_row(row) if row is not None else None
        searched = entry.searched if entry is not None else message.query
        stored = (entry.vector, entry.embedder) if entry is not None else (None, None)
        vector = await stored_or_embedded(retriever, *stored, searched)
        if await pairs.is_own(await readings(retriever, message.query, searched, vector), uuid):
            return True
    return False


async def fix(
    db: AsyncSession, retriever: Retriever, account_uuid: str, chatbot_uuid: str, body: ReviewFix, now: datetime
) -> ReviewFixed:
    """Write the right answer for the answers `body.message_uuids`: a new Q&A pair, or the new answer of the pair
    `data_source_uuid` when it is the question's own (`pairs`: 409 `qa_pair_not_offered` else), processed and
    indexed like any; their review items close."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    answers = await _answers(db, chatbot.uuid, body.message_uuids)
    if body.data_source_uuid is not None:
        found = await sources.in_chatbot(db, chatbot.uuid, [body.data_source_uuid])
        if not found:
            raise not_found("Data source")
        if found[0].type == SourceType.QA and not await _offered(db, retriever, chatbot.uuid, answers, found[0].uuid):
            raise not_offered()
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
