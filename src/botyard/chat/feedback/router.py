"""The owner's view of the end users' feedback (the owner's key). Not in the hosted interface; designed in its
style. End users give feedback through the widget API (`widget.router`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from botyard.chat.feedback import service
from botyard.chat.feedback.schemas import FeedbackEntry
from botyard.deps import DbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import requires
from botyard.identity.caller import CurrentAccount
from botyard.models import Permission
from botyard.models.kinds import Rating
from botyard.schemas import MAX_SQL_INTEGER

router = APIRouter(tags=["sessions and messages"])

_LIST = error_responses({ErrorCode.NOT_FOUND: "no such chatbot, or another account's."})


@router.get(
    "/chatbot/{uuid}/feedback",
    response_model=list[FeedbackEntry],
    responses=_LIST,
    dependencies=[requires(Permission.READ)],
)
async def list_feedback(
    uuid: str,
    db: DbSession,
    account: CurrentAccount,
    rating: Annotated[Rating | None, Query(description="Only answers rated `up` or only those rated `down`.")] = None,
    limit: Annotated[int, Query(ge=1, le=200, description="At most this many entries.")] = 50,
    offset: Annotated[
        int, Query(ge=0, le=MAX_SQL_INTEGER, description="Skip this many entries (the next page: `offset + limit`).")
    ] = 0,
) -> list[FeedbackEntry]:
    """The chatbot's answers its users rated (thumbs up or down, with their optional comment), newest verdict first:
    each with its session and message uuids, the question, the start of the answer (`response_excerpt`, at most 300
    characters; the whole message is `GET /message/{message_uuid}`), `rating`, `comment` ("" for none) and
    `created_at` (when the verdict was given)."""
    return await service.list_feedback(db, account, uuid, rating, limit, offset)
