"""The team's inbox (the owner's key or a signed-in person): the conversations handed to people with filters, what
waits for a person, a conversation's status and assignee, dismissing a request, marking a conversation read. Not in
the hosted interface; designed in its style."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from botyard.chat import service as chat
from botyard.chat.schemas import Session
from botyard.db.base import utcnow
from botyard.deps import DbSession, ReadDbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import NotAudited, requires
from botyard.identity.caller import CurrentAccount, CurrentPrincipal
from botyard.identity.users.availability import takers_of
from botyard.live import service as live
from botyard.live.inbox import context, listing, service, work
from botyard.live.inbox.filters import WIDGET, InboxFilter, InboxView, StatusFilter
from botyard.live.inbox.schemas import Assignment, Context, Inbox, Seen, StatusChange, Team, Waiting, Work
from botyard.models import ChannelType, Permission

router = APIRouter(tags=["live chat"])

_CHATBOT = error_responses({ErrorCode.NOT_FOUND: "no such chatbot, or another account's."})
_SESSION = error_responses({ErrorCode.NOT_FOUND: "no such session, or another account's."})
_DISMISS = error_responses(
    {
        ErrorCode.HUMAN_REQUEST_INACTIVE: "the session is not waiting for a person",
        ErrorCode.LIVE_CHAT_ACTIVE: "an operator has it (end the live chat instead).",
    }
)
_STATUS = error_responses(
    {
        ErrorCode.NOT_FOUND: "no such session, or another account's.",
        ErrorCode.SNOOZE_TIME_INVALID: "`snoozed` without a future `snoozed_until`, or a time with another status.",
    }
)
_ASSIGN = error_responses(
    {
        ErrorCode.NOT_FOUND: "no such session, or no such person of the account who takes conversations.",
        ErrorCode.NOT_A_PERSON: "`me` from an API key (name the person with `user_uuid`).",
    }
)
_WORK = requires(
    Permission.LIVE, NotAudited("conversations themselves are not management changes: chatting, documents, live chat")
)
_CHANNELS = "|".join([WIDGET, *(kind.value for kind in ChannelType)])


@router.get("/chatbot/{uuid}/inbox", response_model=Inbox, responses=_CHATBOT, dependencies=[requires(Permission.READ)])
async def get_inbox(
    uuid: str,
    db: ReadDbSession,
    principal: CurrentPrincipal,
    view: Annotated[InboxView, Query(description="Whose: the team's (default), mine, unassigned, waiting, all.")] = (
        InboxView.TEAM
    ),
    status: Annotated[StatusFilter, Query(description="As of now; `all` for every status.")] = StatusFilter.OPEN,
    channel: Annotated[
        str | None, Query(pattern=f"^({_CHANNELS})$", description="A channel type, or `widget` (and the API).")
    ] = None,
    q: Annotated[str, Query(max_length=200, description="Words in its messages or its contact's name.")] = "",
) -> Inbox:
    """The team's conversations: those handed to people (asked for one, live, assigned, or given a status; every
    conversation with `view=all`) that pass the filters, who waits longest first (waiting for a person, then the
    open ones whose customer's last message is unanswered, then by latest activity), each with its status,
    assignee, contact and the caller's unread messages; the counts of the tabs. At most 200."""
    only = InboxFilter(utcnow(), principal.user_uuid, view, status, channel, q)
    return await listing.inbox(db, principal.account_uuid, uuid, only)


@router.get("/inbox/waiting", response_model=Waiting, dependencies=[requires(Permission.READ)])
async def get_waiting(db: ReadDbSession, account: CurrentAccount) -> Waiting:
    """The visitors of all the account's chatbots who wait for a person (asked, and nobody has them: no live chat,
    no assignee), the longest waiting first, at most 100: what the dashboard announces on every page."""
    return await service.waiting_everywhere(db, account)


@router.get("/inbox/people", response_model=Team, dependencies=[requires(Permission.READ)])
async def get_people(db: ReadDbSession, account: CurrentAccount) -> Team:
    """Who a conversation may be assigned to: the account's people who take conversations (owners, admins,
    operators), by name, with whether they said they are away. Readable by everyone of the team, unlike the members'
    page."""
    people = await takers_of(db, account)
    return {
        "people": [
            {"uuid": one.uuid, "name": one.name, "email": one.email, "role": one.role, "away": one.away}
            for one in people
        ]
    }


@router.post(
    "/session/{uuid}/human-request/dismiss",
    response_model=Session,
    responses=_SESSION | _DISMISS,
    dependencies=[_WORK],
)
async def dismiss_human_request(uuid: str, db: DbSession, account: CurrentAccount) -> Session:
    """Clear the session's request for a person without taking it over: it leaves the inbox, the AI goes on
    answering, and operators' event streams get `human_request_dismissed`."""
    return chat.session_to_wire(await live.dismiss(db, account, uuid, utcnow()))


@router.post("/session/{uuid}/seen", response_model=Seen, responses=_SESSION, dependencies=[_WORK])
async def mark_seen(uuid: str, db: DbSession, principal: CurrentPrincipal) -> Seen:
    """The caller has read the session: a person's own unread count starts again from now (the other operators'
    stay); an API key's, every operator's. Event `conversation_seen` (with the person's `user_uuid`)."""
    return await service.seen(db, principal, uuid, utcnow())


@router.post("/session/{uuid}/status", response_model=Work, responses=_STATUS, dependencies=[_WORK])
async def set_status(uuid: str, body: StatusChange, db: DbSession, principal: CurrentPrincipal) -> Work:
    """Set where the team's work stands: `open`, `pending` (waiting for the customer), `snoozed` until
    `snoozed_until` (open again after it), `resolved` (a live chat goes back to the bot, a request for a person is
    cleared). The customer's next message opens it again. Event `conversation_status`."""
    return await work.set_status(db, principal, uuid, body, utcnow())


@router.post("/session/{uuid}/assign", response_model=Work, responses=_ASSIGN, dependencies=[_WORK])
async def assign(uuid: str, body: Assignment, db: DbSession, principal: CurrentPrincipal) -> Work:
    """Give the conversation to a person of the account who takes conversations (`user_uuid`), to the caller
    (`me: true`), or to nobody (`user_uuid: null`). Event `conversation_assigned`."""
    return await work.assign(db, principal, uuid, body, utcnow())


@router.get(
    "/session/{uuid}/context", response_model=Context, responses=_SESSION, dependencies=[requires(Permission.READ)]
)
async def get_context(uuid: str, db: ReadDbSession, account: CurrentAccount) -> Context:
    """What to see beside the conversation: its contact, its channel, the page the visitor was on, the contact's
    other conversations on any channel (at most 20, the latest first), and each of the bot's answers with its
    confidence and the sources it quoted."""
    return await context.context(db, account, uuid)
