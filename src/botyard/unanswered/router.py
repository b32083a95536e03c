"""The owner's unanswered questions (the owner's key). Not in the hosted interface; designed in its style."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from botyard.chat.schemas import TimestampParam
from botyard.deps import AppClock, AppRetriever, DbSession
from botyard.identity.access import Audited, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import MAX_SQL_INTEGER
from botyard.unanswered import fixes, review, service
from botyard.unanswered.schemas import (
    Answered,
    Dismissed,
    ReviewAccept,
    ReviewAccepted,
    ReviewFix,
    ReviewFixed,
    ReviewGroups,
    UnansweredAnswer,
    UnansweredDismiss,
    UnansweredGroups,
)

router = APIRouter(tags=["unanswered questions"])


@router.get("/chatbot/{uuid}/unanswered", response_model=UnansweredGroups, dependencies=[requires(Permission.READ)])
async def list_unanswered(
    uuid: str,
    db: DbSession,
    account: CurrentAccount,
    retriever: AppRetriever,
    start_timestamp: Annotated[TimestampParam, Query(description="Asked at or after (to the second).")] = None,
    end_timestamp: Annotated[TimestampParam, Query(description="Asked at or before (the whole second).")] = None,
    limit: Annotated[int, Query(ge=1, le=200, description="At most this many groups.")] = 50,
    offset: Annotated[
        int, Query(ge=0, le=MAX_SQL_INTEGER, description="Skip this many groups (the next page: `offset + limit`).")
    ] = 0,
) -> UnansweredGroups:
    """The chatbot's open unanswered questions (refused, answered with the no-answer sentence, no agent, or answered
    on weak evidence: `reasons`), grouped by similarity (the same words, or a cosine of at least 0.4, what the
    relevance decision calls on one subject), the most asked group first. Each group has its leading question,
    `count`, when it was first and last asked, other wordings, example sessions and every question's uuid."""
    return await service.list_groups(db, retriever, account, uuid, (start_timestamp, end_timestamp), (limit, offset))


@router.post(
    "/chatbot/{uuid}/unanswered/answer",
    response_model=Answered,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.QUESTION, AuditAction.UPDATED, "answered"))],
)
async def answer_unanswered(
    uuid: str, body: UnansweredAnswer, db: DbSession, account: CurrentAccount, clock: AppClock
) -> Answered:
    """Answer a group of questions in one step: adds a Q&A data source (`question`, by default the first question as
    it was asked, and `answer`), processed and indexed like any other, and marks the questions answered. 404 when
    none of `question_uuids` is an open question of the chatbot."""
    return await service.answer(db, account, uuid, body, clock())


@router.post(
    "/chatbot/{uuid}/unanswered/dismiss",
    response_model=Dismissed,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.QUESTION, AuditAction.UPDATED, "dismissed"))],
)
async def dismiss_unanswered(
    uuid: str, body: UnansweredDismiss, db: DbSession, account: CurrentAccount, clock: AppClock
) -> Dismissed:
    """Dismiss questions (a group's `question_uuids`): they leave the list and nothing is added. 404 when none of
    them is an open question of the chatbot."""
    return await service.dismiss(db, account, uuid, body.question_uuids, clock())


@router.get(
    "/chatbot/{uuid}/review", response_model=ReviewGroups, tags=["review"], dependencies=[requires(Permission.READ)]
)
async def list_review(
    uuid: str,
    db: DbSession,
    account: CurrentAccount,
    retriever: AppRetriever,
    start_timestamp: Annotated[TimestampParam, Query(description="Asked at or after (to the second).")] = None,
    end_timestamp: Annotated[TimestampParam, Query(description="Asked at or before (the whole second).")] = None,
    limit: Annotated[int, Query(ge=1, le=200, description="At most this many groups.")] = 50,
    offset: Annotated[
        int, Query(ge=0, le=MAX_SQL_INTEGER, description="Skip this many groups (the next page: `offset + limit`).")
    ] = 0,
) -> ReviewGroups:
    """The review queue: every open answer that was refused, unsure (`meta_json.confidence` `low`), handed to a
    person or rated down (`reasons`: `refused`, `unsure`, `handed_off`, `thumbs_down`), grouped by meaning (the same
    question in other words or languages together), the group most visitors met first. Each item has the question,
    the bot's reply, its session and message, and the Q&A pair it quoted (`qa_pair`: its question and answer, and
    whether it is the question's own, the only kind a fix may replace). A hand-off a person took and answered is not
    listed."""
    window = (start_timestamp, end_timestamp)
    return await review.list_review(db, retriever, account, uuid, window, (limit, offset))


@router.post(
    "/chatbot/{uuid}/review/fix",
    response_model=ReviewFixed,
    tags=["review"],
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.QUESTION, AuditAction.UPDATED, "answer fixed"))],
)
async def fix_review(
    uuid: str, body: ReviewFix, db: DbSession, account: CurrentAccount, retriever: AppRetriever, clock: AppClock
) -> ReviewFixed:
    """Fix answers in one step, from the queue or from any transcript: `answer` becomes a Q&A pair (question: the
    first message's, unless `question` is given), or replaces the answer of the Q&A pair `data_source_uuid` when it
    is the question's own (an item's `qa_pair` with `same_question`; any other pair answers 409
    `qa_pair_not_offered`); it is processed and indexed like any source, and the answers' review items close. 404
    when none of `message_uuids` is an answer of the chatbot."""
    return await fixes.fix(db, retriever, account, uuid, body, clock())


@router.post(
    "/chatbot/{uuid}/review/accept",
    response_model=ReviewAccepted,
    tags=["review"],
    dependencies=[
        requires(Permission.KNOWLEDGE, Audited(AuditObject.QUESTION, AuditAction.UPDATED, "answer accepted"))
    ],
)
async def accept_review(
    uuid: str, body: ReviewAccept, db: DbSession, account: CurrentAccount, clock: AppClock
) -> ReviewAccepted:
    """ "This answer is right": the answers' review items close, and nothing changes in the knowledge. 404 when none
    of `message_uuids` is an answer of the chatbot."""
    return await fixes.accept(db, account, uuid, body, clock())
