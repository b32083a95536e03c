"""The operators' inbox (the owner's key): what waits for a person, dismissing a request, marking a conversation
read. Not in the hosted interface; designed in its style."""

from __future__ import annotations

from fastapi import APIRouter

from botyard.chat import service as chat
from botyard.chat.schemas import Session
from botyard.db.base import utcnow
from botyard.deps import DbSession, ReadDbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import NotAudited, requires
from botyard.identity.caller import CurrentAccount
from botyard.live import service as live
from botyard.live.inbox import service
from botyard.live.inbox.schemas import Inbox, Seen, Waiting
from botyard.models import Permission

router = APIRouter(tags=["live chat"])

_CHATBOT = error_responses({ErrorCode.NOT_FOUND: "no such chatbot, or another account's."})
_SESSION = error_responses({ErrorCode.NOT_FOUND: "no such session, or another account's."})
_DISMISS = error_responses(
    {
        ErrorCode.HUMAN_REQUEST_INACTIVE: "the session is not waiting for a person",
        ErrorCode.LIVE_CHAT_ACTIVE: "an operator has it (end the live chat instead).",
    }
)


@router.get("/chatbot/{uuid}/inbox", response_model=Inbox, responses=_CHATBOT, dependencies=[requires(Permission.READ)])
async def get_inbox(uuid: str, db: ReadDbSession, account: CurrentAccount) -> Inbox:
    """The conversations that asked for a person or are live: the waiting ones first (longest waiting first), each
    with the message that asked (else its first question), since when it waits, and its unread messages (the
    visitor's, since an operator last opened it), and their total. At most 200."""
    return await service.inbox(db, account, uuid)


@router.get("/inbox/waiting", response_model=Waiting, dependencies=[requires(Permission.READ)])
async def get_waiting(db: ReadDbSession, account: CurrentAccount) -> Waiting:
    """The visitors of all the account's chatbots who wait for a person (asked, and no operator has them yet), the
    longest waiting first, at most 100: what the dashboard announces on every page."""
    return await service.waiting_everywhere(db, account)


@router.post(
    "/session/{uuid}/human-request/dismiss",
    response_model=Session,
    responses=_SESSION | _DISMISS,
    dependencies=[
        requires(
            Permission.LIVE,
            NotAudited("conversations themselves are not management changes: chatting, documents, live chat"),
        )
    ],
)
async def dismiss_human_request(uuid: str, db: DbSession, account: CurrentAccount) -> Session:
    """Clear the session's request for a person without taking it over: it leaves the inbox, the AI goes on
    answering, and operators' event streams get `human_request_dismissed`."""
    return chat.session_to_wire(await live.dismiss(db, account, uuid, utcnow()))


@router.post(
    "/session/{uuid}/seen",
    response_model=Seen,
    responses=_SESSION,
    dependencies=[
        requires(
            Permission.LIVE,
            NotAudited("conversations themselves are not management changes: chatting, documents, live chat"),
        )
    ],
)
async def mark_seen(uuid: str, db: DbSession, account: CurrentAccount) -> Seen:
    """An operator has read the session: its unread count starts again from now, for every operator (event
    `conversation_seen`)."""
    return await service.seen(db, account, uuid, utcnow())
