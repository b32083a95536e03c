"""Chat sessions and their messages."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from botyard.chat import service
from botyard.chat.filters import SessionQuery
from botyard.chat.schemas import (
    Message,
    MessageUuids,
    Session,
    SessionCreate,
    SessionSummary,
)
from botyard.chat.wire import transcript
from botyard.deps import DbSession
from botyard.errors import AppError, ErrorCode, Responses, error_response, error_responses
from botyard.identity.access import Audited, NotAudited, public, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import Success

router = APIRouter(tags=["sessions and messages"])

_TRANSCRIPT: Responses = {
    200: {
        "description": "A JSON string (clients read it with `response.json()`): one line per turn, oldest first, "
        "`User: <query>` then `Assistant: <response>` (an operator's reply `Operator: <text>`), joined by `\\n` with "
        'no blank line and no trailing newline; a line break inside a text is shown as one space; `""` when the '
        "session has no messages.",
        "content": {"application/json": {"schema": {"type": "string"}}},
    }
}
_ONE_MESSAGE = error_responses({ErrorCode.NOT_FOUND: "no such message, or another account's."})
_NO_PLAIN_MESSAGE = error_responses({ErrorCode.METHOD_NOT_ALLOWED: "always: use `.../message/stream`."})


@router.post(
    "/chatbot/{chatbot_uuid}/session/create",
    response_model=SessionSummary,
    dependencies=[
        requires(
            Permission.CHAT,
            NotAudited("conversations themselves are not management changes: chatting, documents, live chat"),
        )
    ],
)
async def create_session(
    chatbot_uuid: str, db: DbSession, account: CurrentAccount, body: SessionCreate | None = None
) -> SessionSummary:
    """Start a chat session with a chatbot, optionally with `initial_variables` (stored in the session's meta)."""
    return service.session_summary(await service.create_session(db, account, chatbot_uuid, body or SessionCreate()))


@router.get("/session/{uuid}", response_model=Session, dependencies=[requires(Permission.READ)])
async def get_session(uuid: str, db: DbSession, account: CurrentAccount) -> Session:
    """Fetch one session with its meta (variables, human_requested, tags)."""
    return service.session_to_wire(await service.get_owned_session(db, account, uuid))


@router.get("/chatbot/{uuid}/sessions", response_model=list[SessionSummary], dependencies=[requires(Permission.READ)])
async def list_sessions(uuid: str, only: SessionQuery, db: DbSession, account: CurrentAccount) -> list[SessionSummary]:
    """List a chatbot's sessions, oldest first, optionally only those created between two moments (inclusive),
    only those flagged for operators (`human_requested=1`, the live-chat inbox), only those with given tags, and
    (extensions, like `/chatbot/{uuid}/conversations`) by refused answers, hand-off and feedback. `modified_at` is
    the session's last activity: its last message, answer or live-chat row."""
    sessions = await service.list_sessions(db, account, uuid, only)
    return [service.session_summary(session) for session in sessions]


@router.post(
    "/session/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.CONVERSATION, AuditAction.DELETED))],
)
async def delete_session(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete a session with all its messages."""
    await service.delete_session(db, account, uuid)
    return Success()


@router.delete(
    "/session/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.CONVERSATION, AuditAction.DELETED))],
)
async def delete_session_by_delete(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete a session with all its messages (the same as the POST form)."""
    await service.delete_session(db, account, uuid)
    return Success()


@router.get("/session/{uuid}/messages", response_model=list[Message], dependencies=[requires(Permission.READ)])
async def list_messages(uuid: str, db: DbSession, account: CurrentAccount) -> list[Message]:
    """List a session's messages, oldest first, with exactly the hosted keys; `cite_data_json`, `meta_json`,
    `feedback_json` and `ai_context_json` are JSON strings, `labels` the session's tags."""
    return await service.list_messages_on_wire(db, account, uuid)


@router.get(
    "/session/{uuid}/messages/plain-text",
    response_model=str,
    responses=_TRANSCRIPT,
    dependencies=[requires(Permission.READ)],
)
async def session_transcript(uuid: str, db: DbSession, account: CurrentAccount) -> str:
    """The session's transcript as one JSON string: a `User: ...` or `Assistant: ...` line per turn."""
    return transcript(await service.list_messages(db, account, uuid))


@router.get("/message/{uuid}", response_model=Message, responses=_ONE_MESSAGE, dependencies=[requires(Permission.READ)])
async def get_message(uuid: str, db: DbSession, account: CurrentAccount) -> Message:
    """Fetch one message, with the same keys as the session's list."""
    return await service.message_on_wire(db, await service.get_owned_message(db, account, uuid))


@router.post(
    "/message/{uuid}/delete",
    response_model=Success,
    dependencies=[
        requires(Permission.MANAGE, Audited(AuditObject.CONVERSATION, AuditAction.UPDATED, "message deleted"))
    ],
)
async def delete_message(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete one message."""
    await service.delete_message(db, account, uuid)
    return Success()


@router.post(
    "/messages/delete",
    response_model=Success,
    dependencies=[
        requires(Permission.MANAGE, Audited(AuditObject.CONVERSATION, AuditAction.UPDATED, "messages deleted"))
    ],
)
async def delete_messages(body: MessageUuids, db: DbSession, account: CurrentAccount) -> Success:
    """Delete several messages: all of them, or none when any uuid is unknown (422 listing those uuids)."""
    await service.delete_messages(db, account, body.uuids)
    return Success()


@router.post(
    "/session/{uuid}/message",
    response_model=None,
    status_code=405,
    responses=_NO_PLAIN_MESSAGE,
    dependencies=[public()],
)
@router.api_route(
    "/session/{uuid}/message",
    methods=["GET", "PUT", "PATCH", "DELETE"],
    response_model=None,
    include_in_schema=False,
    dependencies=[public()],
)
async def message_without_mode(uuid: str) -> JSONResponse:
    """Not an endpoint (405, as on the hosted service): send messages to `/session/{uuid}/message/stream`."""
    response = error_response(AppError(ErrorCode.METHOD_NOT_ALLOWED, "Use POST /api/v1/session/{uuid}/message/stream"))
    response.headers["Allow"] = ""  # RFC 9110: an empty Allow means the resource allows no method.
    return response
