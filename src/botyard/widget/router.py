"""The widget's owner settings (`/chatbot/{uuid}/widget`, the owner's key) and the public widget API
(`/widget/...`, no key: only `public` and `hybrid` chatbots; the session uuid is the capability). Not in the hosted
interface; designed in its style."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.answering.router import Answers
from botyard.answering.turn.records import Ask
from botyard.answering.wire import AnswerResponse, wants_events
from botyard.chat.feedback.schemas import Feedback
from botyard.chat.feedback.service import feedback_of
from botyard.chat.ratelimit import CallingVisitor
from botyard.chat.service import messages_by_uuids, session_messages
from botyard.db.base import iso, utcnow
from botyard.deps import AppClock, AppDatabase, ClientNetwork, DbSession, ReadDbSession
from botyard.errors import ErrorCode, Responses, error_responses
from botyard.identity.access import Audited, public, requires
from botyard.identity.caller import CurrentAccount
from botyard.live import contact
from botyard.live import service as live
from botyard.live.event_stream import (
    MAX_EVENT_ID,
    AppEventWatch,
    AppStreamSlots,
    EventReader,
    StreamedEvent,
    event_response,
    start_after,
)
from botyard.live.wakeup import session_topic
from botyard.models import AuditAction, AuditObject, ChatbotEventKind, MessageMeta, Permission
from botyard.widget import service
from botyard.widget.origins import check_origin
from botyard.widget.schemas import (
    WidgetConfig,
    WidgetContact,
    WidgetContactCreate,
    WidgetEntry,
    WidgetFeedbackCreate,
    WidgetMessageCreate,
    WidgetSession,
    WidgetSessionCreate,
    WidgetSettings,
    WidgetSettingsUpdate,
)

router = APIRouter(tags=["widget"])

_ORIGIN = {ErrorCode.ORIGIN_NOT_ALLOWED: "the calling website is not in the chatbot's `allowed_origins`."}
_REFUSED = error_responses({**_ORIGIN, ErrorCode.NOT_FOUND: "no such chatbot or session, or its chatbot is private."})
_NEW_SESSION = _REFUSED | error_responses(
    {
        ErrorCode.RATE_LIMITED: "over the chatbot's rate limit for this client address's new sessions, or over the "
        "service's anonymous ceiling: `Retry-After`."
    }
)
_STREAM: Responses = {
    **_REFUSED,
    200: {
        "description": "As `/session/{uuid}/message/stream`: plain text, or SSE with `Accept: text/event-stream`. "
        "During a live chat the answer is empty: the message went to the operator.",
        "content": {"text/plain": {"schema": {"type": "string"}}, "text/event-stream": {"schema": {"type": "string"}}},
    },
    **error_responses(
        {
            ErrorCode.RATE_LIMITED: "over the chatbot's rate limit for this client address, or over the service's "
            "ceiling for anonymous messages: its `rate_limit_message`, `Retry-After`."
        }
    ),
}
_FEEDBACK = error_responses(
    {
        **_ORIGIN,
        ErrorCode.NOT_FOUND: "no such session, or its chatbot is private; or the message is not an answer of this "
        "session (missing, another session's or chatbot's, a live-chat row, or still streaming).",
        ErrorCode.RATE_LIMITED: "over the chatbot's rate limit for this client address's feedback: `Retry-After`.",
    }
)
_CONTACT = _REFUSED | error_responses(
    {
        ErrorCode.CONTACT_FORM_CLOSED: "no form is open (nobody asked for a person after hours, or the message was "
        "sent already).",
        ErrorCode.VALIDATION_ERROR: "not an email address, or an empty or too long message.",
    }
)
_EVENTS: Responses = {
    **_REFUSED,
    200: {
        "description": "Server-sent events of the session's live chat, each with `id:` (resume with `Last-Event-ID` "
        "or `after`): `live_chat_started` ({text}), `operator_message` ({text, message_uuid}), `live_chat_ended` "
        "({text}); `ping` every 15 s.",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    },
    **error_responses(
        {ErrorCode.TOO_MANY_STREAMS: "this client address already holds its streams open; `Retry-After`."}
    ),
}


@router.get("/chatbot/{uuid}/widget", response_model=WidgetSettings, dependencies=[requires(Permission.READ)])
async def get_widget_settings(uuid: str, db: DbSession, account: CurrentAccount) -> WidgetSettings:
    """The chatbot's widget settings (the defaults until they are first changed)."""
    return await service.get_settings(db, account, uuid)


@router.post(
    "/chatbot/{uuid}/widget",
    response_model=WidgetSettings,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.SETTING, AuditAction.UPDATED, "widget"))],
)
async def update_widget_settings(
    uuid: str, body: WidgetSettingsUpdate, db: DbSession, account: CurrentAccount
) -> WidgetSettings:
    """Change any of the widget settings: `allowed_origins` (empty: any website may embed it), `title`, colours,
    `welcome_message`, `suggested_questions`, `placeholder`, `image_hosts`."""
    return await service.update_settings(db, account, uuid, body, utcnow())


@router.get("/widget/{chatbot_uuid}", response_model=WidgetConfig, responses=_REFUSED, dependencies=[public()])
async def widget_config(chatbot_uuid: str, request: Request, db: ReadDbSession) -> WidgetConfig:
    """What the widget shows (title, colours, welcome message, suggested questions...), and the chatbot's language
    with the widget's own words in it. No key."""
    opened = await service.open_chatbot(db, chatbot_uuid)
    check_origin(request, opened.allowed_origins)
    return await service.config(db, opened)


@router.post(
    "/widget/{chatbot_uuid}/session", response_model=WidgetSession, responses=_NEW_SESSION, dependencies=[public()]
)
async def widget_session(
    chatbot_uuid: str,
    body: WidgetSessionCreate,
    request: Request,
    visitor: CallingVisitor,
    db: DbSession,
    clock: AppClock,
) -> WidgetSession:
    """Start a session for a widget user (no key); new sessions count against the chatbot's rate limit per client
    address, in a window of their own."""
    opened = await service.open_chatbot(db, chatbot_uuid)
    check_origin(request, opened.allowed_origins)
    session = await service.create_session(db, opened, body, visitor, clock())
    return WidgetSession(session_uuid=session.uuid, created_at=iso(session.created_at))


@router.get(
    "/widget/session/{session_uuid}/messages",
    response_model=list[WidgetEntry],
    responses=_REFUSED,
    dependencies=[public()],
)
async def widget_messages(session_uuid: str, request: Request, db: ReadDbSession) -> list[WidgetEntry]:
    """The conversation so far, oldest first, as the widget shows it (restored after a page reload)."""
    session, opened = await service.open_session(db, session_uuid)
    check_origin(request, opened.allowed_origins)
    messages = await session_messages(db, session.uuid)
    return service.entries(messages, await feedback_of(db, [message.uuid for message in messages]))


@router.post(
    "/widget/session/{session_uuid}/message/stream",
    status_code=200,
    response_class=AnswerResponse,
    responses=_STREAM,
    dependencies=[public()],
)
async def widget_stream(
    session_uuid: str,
    body: WidgetMessageCreate,
    request: Request,
    visitor: CallingVisitor,
    answers: Answers,
    database: AppDatabase,
    accept: Annotated[str | None, Header()] = None,
) -> AnswerResponse:
    """Send a widget user's message and stream the answer; the rate limit counts per client address (whatever
    device id or session it sends), and all visitors together are held to the service's anonymous ceiling."""
    async with database.transaction(write=False) as db:
        _, opened = await service.open_session(db, session_uuid)
    check_origin(request, opened.allowed_origins)
    events = wants_events(accept)
    run = await answers.begin(Ask(session_uuid=session_uuid, query=body.query, visitor=visitor), events=events)
    return AnswerResponse(run, events=events)


@router.post(
    "/widget/session/{session_uuid}/message/{message_uuid}/feedback",
    response_model=Feedback,
    responses=_FEEDBACK,
    dependencies=[public()],
)
async def widget_feedback(
    session_uuid: str,
    message_uuid: str,
    body: WidgetFeedbackCreate,
    request: Request,
    visitor: CallingVisitor,
    db: DbSession,
    clock: AppClock,
) -> Feedback:
    """The widget user's verdict on an answer of the session: `rating` `up` or `down` and an optional `comment`
    (no key: the session uuid is the capability). Giving it again replaces it. It shows as the message's
    `feedback_json` and in the owner's `GET /chatbot/{uuid}/feedback`."""
    session, opened = await service.open_session(db, session_uuid)
    check_origin(request, opened.allowed_origins)
    return await service.give_feedback(db, opened, session, message_uuid, body, visitor, clock())


@router.get(
    "/widget/session/{session_uuid}/contact", response_model=WidgetContact, responses=_REFUSED, dependencies=[public()]
)
async def widget_contact(session_uuid: str, request: Request, db: ReadDbSession) -> WidgetContact:
    """Whether the after-hours form is open: the visitor asked for a person outside the chatbot's office hours (the
    widget asks after each answer). No key."""
    session, opened = await service.open_session(db, session_uuid)
    check_origin(request, opened.allowed_origins)
    return await contact.state(db, session.uuid)


@router.post(
    "/widget/session/{session_uuid}/contact",
    status_code=201,
    response_model=WidgetContact,
    responses=_CONTACT,
    dependencies=[public()],
)
async def widget_leave_contact(
    session_uuid: str, body: WidgetContactCreate, request: Request, db: DbSession, clock: AppClock
) -> WidgetContact:
    """Leave an email address and a message through the open after-hours form: stored in the conversation (the
    owner's inbox), sent to the chatbot's notification addresses and as the webhook event `contact_form_sent`."""
    session, opened = await service.open_session(db, session_uuid)
    check_origin(request, opened.allowed_origins)
    await contact.leave(db, session, str(body.email), body.message, clock())
    return {"offered": False, "sent": True}


@router.get(
    "/widget/session/{session_uuid}/events",
    response_class=StreamingResponse,
    responses=_EVENTS,
    dependencies=[public()],
)
async def widget_events(
    session_uuid: str,
    request: Request,
    address: ClientNetwork,
    db: ReadDbSession,
    database: AppDatabase,
    watch: AppEventWatch,
    slots: AppStreamSlots,
    after: Annotated[
        int | None, Query(ge=0, le=MAX_EVENT_ID, description="Send the events after this id (default: from now).")
    ] = None,
    last_event_id: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """Follow the session's live chat: an operator taking over, their replies, the hand-back (works with
    `EventSource`). One client address may hold `BOTYARD_STREAMS_PER_ADDRESS` of these open at once (429
    `too_many_streams` beyond)."""
    session, opened = await service.open_session(db, session_uuid)
    check_origin(request, opened.allowed_origins)
    start = await start_after(after, last_event_id, lambda: live.last_session_event_id(db, session.uuid))
    give_back = slots.take(address)  # last: a refusal above holds no slot
    return event_response(database, watch, session_topic(session.uuid), _session_events(session.uuid), start, give_back)


def _session_events(session_uuid: str) -> EventReader:
    """The session's live-chat events as the widget shows them: the message's text, and which message it is."""

    async def read(db: AsyncSession, after: int) -> list[StreamedEvent]:
        found = await live.session_events_after(db, session_uuid, after)
        uuids = [str(event.data.get("message_uuid")) for event in found if event.data.get("message_uuid")]
        rows = await messages_by_uuids(db, uuids)
        shown = []
        for event in found:
            row = rows.get(str(event.data.get("message_uuid")))
            data = {"text": row.response if row is not None else "", "created_at": iso(event.created_at)}
            if row is not None and (name := MessageMeta.of(row).operator_name) is not None:
                data["operator_name"] = name
            if event.kind == ChatbotEventKind.OPERATOR_MESSAGE and row is not None:
                data["message_uuid"] = row.uuid
            shown.append((event.id, event.kind, data))
        return shown

    return read
