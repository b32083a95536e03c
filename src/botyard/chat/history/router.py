"""The owner's view of a chatbot's conversations (the owner's key). Not in the hosted interface; designed in its
style: the hosted session objects keep their exact shape, so previews and figures have an endpoint of their own."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from botyard.chat.filters import SessionQuery
from botyard.chat.history import service
from botyard.chat.history.schemas import Conversation, ExportFormat, Retention, RetentionUpdate
from botyard.deps import AppDatabase, DbSession, ReadDbSession
from botyard.errors import ErrorCode, Responses, error_responses
from botyard.identity.access import Audited, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import MAX_SQL_INTEGER

router = APIRouter(tags=["sessions and messages"])

_CHATBOT = error_responses({ErrorCode.NOT_FOUND: "no such chatbot, or another account's."})
_SESSION = error_responses({ErrorCode.NOT_FOUND: "no such session, or another account's."})
_EXPORT: Responses = {
    200: {
        "description": "CSV (`text/csv`): a header, then one row per turn: `session_uuid, time, role` (`user`, "
        "`assistant`, `operator`, `announcement`), `text, agent` (the answering agent's name), `refused` "
        "(`true`/`false`), `rating` (`up`, `down` or empty). A text starting with `= + - @` is written with a "
        "leading `'` (formula injection). JSON: an array of `{uuid, created_at, modified_at, tags, messages}`, "
        "each message `{time, role, text, agent, refused, rating}`. Sessions in creation order.",
        "content": {"text/csv": {"schema": {"type": "string"}}, "application/json": {"schema": {"type": "array"}}},
    }
}
FormatQuery = Annotated[ExportFormat, Query(alias="format", description="`csv` (default) or `json`.")]

_MEDIA = {ExportFormat.CSV: "text/csv; charset=utf-8", ExportFormat.JSON: "application/json"}


@router.get(
    "/chatbot/{uuid}/conversations",
    response_model=list[Conversation],
    responses=_CHATBOT,
    dependencies=[requires(Permission.READ)],
)
async def list_conversations(
    uuid: str,
    only: SessionQuery,
    db: ReadDbSession,
    account: CurrentAccount,
    limit: Annotated[int, Query(ge=1, le=200, description="At most this many conversations.")] = 50,
    offset: Annotated[
        int, Query(ge=0, le=MAX_SQL_INTEGER, description="Skip this many (the next page: `offset + limit`).")
    ] = 0,
) -> list[Conversation]:
    """The chatbot's conversations, latest activity first, with the start of the first question (`preview`), the
    number of messages, refused answers and ratings, and whether a person was involved. Takes the filters of
    `/chatbot/{uuid}/sessions`: `start_timestamp`/`end_timestamp` (creation), `human_requested`, `tag`, `refused`,
    `handed_off`, `feedback`, `channel`. A conversation on a channel names it and its external user (`channel`)."""
    return await service.overview(db, account, uuid, only, limit, offset)


@router.get(
    "/chatbot/{uuid}/sessions/export",
    response_class=StreamingResponse,
    responses=_CHATBOT | _EXPORT,
    dependencies=[requires(Permission.READ)],
)
async def export_sessions(
    uuid: str,
    only: SessionQuery,
    db: ReadDbSession,
    database: AppDatabase,
    account: CurrentAccount,
    form: FormatQuery = ExportFormat.CSV,
) -> StreamingResponse:
    """Download the conversations the filters pick (all of them without a filter; a period with
    `start_timestamp`/`end_timestamp`, on creation time, inclusive) as CSV or JSON, streamed."""
    chatbot_uuid = await service.owned_chatbot_uuid(db, account, uuid)
    name = f"conversations-{chatbot_uuid[:8]}-{date.today().isoformat()}.{form.value}"
    return _download(service.export(database, chatbot_uuid, only, form), form, name)


@router.get(
    "/session/{uuid}/export",
    response_class=StreamingResponse,
    responses=_SESSION | _EXPORT,
    dependencies=[requires(Permission.READ)],
)
async def export_session(
    uuid: str, db: ReadDbSession, database: AppDatabase, account: CurrentAccount, form: FormatQuery = ExportFormat.CSV
) -> StreamingResponse:
    """Download one conversation as CSV or JSON (the same shapes as `/chatbot/{uuid}/sessions/export`)."""
    chatbot_uuid, only = await service.owned_session(db, account, uuid)
    return _download(service.export(database, chatbot_uuid, only, form), form, f"conversation-{uuid}.{form.value}")


def _download(body: Any, form: ExportFormat, name: str) -> StreamingResponse:
    headers = {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}
    return StreamingResponse(body, media_type=_MEDIA[form], headers=headers)


@router.get(
    "/chatbot/{uuid}/conversations/retention",
    response_model=Retention,
    responses=_CHATBOT,
    dependencies=[requires(Permission.READ)],
)
async def get_retention(uuid: str, db: ReadDbSession, account: CurrentAccount) -> Retention:
    """How long the chatbot's conversations are kept after their last activity (`null`: forever)."""
    return await service.get_retention(db, account, uuid)


@router.post(
    "/chatbot/{uuid}/conversations/retention",
    response_model=Retention,
    responses=_CHATBOT,
    dependencies=[
        requires(Permission.MANAGE, Audited(AuditObject.SETTING, AuditAction.UPDATED, "conversation retention"))
    ],
)
async def set_retention(uuid: str, body: RetentionUpdate, db: DbSession, account: CurrentAccount) -> Retention:
    """Set how long conversations are kept after their last activity, in days (`null`: forever). Older ones are
    deleted with their messages right away, then checked every hour."""
    return await service.set_retention(db, account, uuid, body.retention_days)
