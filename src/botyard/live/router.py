"""Live chat for operators (the owner's key): take a flagged session over, reply, hand it back, and follow a
chatbot's events. Not in the hosted interface; designed in its style (`/session/{uuid}/...`, `/chatbot/{uuid}/...`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query
from fastapi.responses import StreamingResponse
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat import service
from botyard.chat.schemas import Message, Session
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import utcnow
from botyard.deps import AppDatabase, DbSession
from botyard.errors import ErrorCode, Responses, error_responses
from botyard.identity.access import NotAudited, requires
from botyard.identity.caller import CurrentAccount, CurrentPrincipal
from botyard.identity.users.availability import operator_name
from botyard.live import service as live
from botyard.live.event_stream import MAX_EVENT_ID, AppEventWatch, StreamedEvent, event_response, start_after
from botyard.live.inbox import work
from botyard.live.schemas import OperatorReply
from botyard.live.wakeup import chatbot_topic
from botyard.models import Permission

router = APIRouter(tags=["live chat"])


_ACTIVE = error_responses({ErrorCode.LIVE_CHAT_ACTIVE: "an operator has this session already."})
_INACTIVE = error_responses({ErrorCode.LIVE_CHAT_INACTIVE: "no operator has this session."})
_EVENTS: Responses = {
    200: {
        "description": "Server-sent events, oldest first, each with `id:` (resume with `Last-Event-ID` or `after`): "
        "`human_requested` ({session_uuid, reason, message_uuid}), `user_message` ({session_uuid, message_uuid, "
        "query}: a user wrote in a flagged or live session), `live_chat_started`, `operator_message` "
        "({message_uuid}), `live_chat_ended`, `human_request_dismissed` (an operator cleared the request), "
        "`conversation_seen` ({user_uuid}: that person read it; absent: an API key, read for everyone), "
        "`tags_assigned` ({tags}), "
        "`contact_form_offered` ({message_uuid}: asked for a person after office hours), `contact_form_sent` "
        "({message_uuid, email, message}), `conversation_assigned` ({assignee_uuid, assignee_name, by_uuid}), "
        "`conversation_status` ({status, snoozed_until, by_uuid}), `note_added` ({note_uuid, author_uuid, "
        "author_name, text}: a private note, never sent to the widget or a channel), `note_deleted` "
        "({note_uuid}); every event "
        "also carries `id`, `type`, `session_uuid` and `created_at`. `ping` every 15 s.",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


@router.post(
    "/session/{uuid}/live-chat/start",
    response_model=Session,
    responses=_ACTIVE,
    dependencies=[
        requires(
            Permission.LIVE,
            NotAudited("conversations themselves are not management changes: chatting, documents, live chat"),
        )
    ],
)
async def start_live_chat(uuid: str, db: DbSession, principal: CurrentPrincipal) -> Session:
    """Take the session over: the start announcement is added to the transcript and the AI stops answering it
    (the user's messages are stored for the operator). A person signed in to the dashboard signs it with their name
    (`meta_json.operator_name`, and the event's), and has the conversation when nobody had it (assigned, event
    `conversation_assigned`). 409 `live_chat_active` if an operator already has it."""
    name = await operator_name(db, principal)
    return service.session_to_wire(await work.take_over(db, principal, uuid, name, utcnow()))


@router.post(
    "/session/{uuid}/live-chat/message",
    response_model=Message,
    responses=_INACTIVE,
    dependencies=[
        requires(
            Permission.LIVE,
            NotAudited("conversations themselves are not management changes: chatting, documents, live chat"),
        )
    ],
)
async def operator_message(uuid: str, body: OperatorReply, db: DbSession, principal: CurrentPrincipal) -> Message:
    """Reply to the user as the operator (a transcript row with an empty query and `meta_json.kind` `operator`;
    `meta_json.operator_name` is the name of the person signed in to the dashboard, absent for an API key).
    409 `live_chat_inactive` unless a live chat is on."""
    name = await operator_name(db, principal)
    reply = await live.reply(db, principal.account_uuid, uuid, body.text, utcnow(), name)
    return await service.message_on_wire(db, reply)


@router.post(
    "/session/{uuid}/live-chat/end",
    response_model=Session,
    responses=_INACTIVE,
    dependencies=[
        requires(
            Permission.LIVE,
            NotAudited("conversations themselves are not management changes: chatting, documents, live chat"),
        )
    ],
)
async def end_live_chat(uuid: str, db: DbSession, account: CurrentAccount) -> Session:
    """Hand the session back to the AI: the end announcement is added and `human_requested` is cleared."""
    return service.session_to_wire(await live.end(db, account, uuid, utcnow()))


@router.get(
    "/chatbot/{uuid}/events",
    response_class=StreamingResponse,
    responses=_EVENTS,
    dependencies=[requires(Permission.READ)],
)
async def chatbot_events(
    uuid: str,
    db: DbSession,
    account: CurrentAccount,
    database: AppDatabase,
    watch: AppEventWatch,
    after: Annotated[
        int | None, Query(ge=0, le=MAX_EVENT_ID, description="Send the events after this id (default: from now).")
    ] = None,
    last_event_id: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """Follow the chatbot's operator events (server-sent events) until the client disconnects."""
    chatbot = await get_owned_chatbot(db, account, uuid)
    start = await start_after(after, last_event_id, lambda: live.last_event_id(db, chatbot.uuid))

    async def read(db: AsyncSession, after: int) -> list[StreamedEvent]:
        return [(e.id, e.kind, live.event_to_wire(e)) for e in await live.events_after(db, chatbot.uuid, after)]

    return event_response(database, watch, chatbot_topic(chatbot.uuid), read, start)
