"""A conversation as the team's work: its status (open, pending, snoozed until a time, resolved) and the person who
has it. Each change is told on the operators' event streams (`conversation_status`, `conversation_assigned`), never
to the widget, a channel or a webhook.

Resolving is the end of the team's work: a live chat is handed back to the bot (its end announcement, as
`live.service.end` writes it) and a request for a person is cleared. Handing back alone (`live-chat/end`) leaves the
conversation open."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat import session_state
from botyard.chat.service import get_owned_session
from botyard.db.base import iso
from botyard.errors import AppError, ErrorCode, not_found
from botyard.identity.principal import Principal
from botyard.identity.users import members
from botyard.identity.users.availability import TAKERS
from botyard.live import service as live
from botyard.live.inbox.filters import current_status
from botyard.live.inbox.listing import person
from botyard.live.inbox.schemas import Assignment, StatusChange, Work
from botyard.models import ChatbotEventKind, ChatSession, ConversationStatus, Role


async def set_status(
    db: AsyncSession, principal: Principal, session_uuid: str, change: StatusChange, now: datetime
) -> Work:
    """Set the conversation's status; 422 `snooze_time_invalid` for a snooze without a future time, or a time
    given with another status."""
    session = await get_owned_session(db, principal.account_uuid, session_uuid)
    until = change.snoozed_until
    if change.status is ConversationStatus.SNOOZED and (until is None or until <= now):
        raise AppError(ErrorCode.SNOOZE_TIME_INVALID, "Snoozing needs `snoozed_until`, a time in the future")
    if change.status is not ConversationStatus.SNOOZED and until is not None:
        raise AppError(ErrorCode.SNOOZE_TIME_INVALID, "Give `snoozed_until` only with the status `snoozed`")
    if change.status is ConversationStatus.RESOLVED:
        await _finish_handing(db, principal.account_uuid, session, now)
    session_state.set_status(session, change.status, now, until)
    data = {"status": change.status.value, "snoozed_until": iso(until) if until else None}
    await live.record(db, session, ChatbotEventKind.CONVERSATION_STATUS, now, **data, **_by(principal))
    return await work_of(db, session, now)


async def _finish_handing(db: AsyncSession, account_uuid: str, session: ChatSession, now: datetime) -> None:
    """Resolved: a live chat goes back to the bot, a request for a person is answered."""
    if live.is_live(session):
        await live.end(db, account_uuid, session.uuid, now)
    elif live.is_flagged(session):
        await live.dismiss(db, account_uuid, session.uuid, now)


async def assign(db: AsyncSession, principal: Principal, session_uuid: str, to: Assignment, now: datetime) -> Work:
    """Give the conversation to a person of the account who takes conversations (404 for anyone else), to the
    caller (`me`: 409 `not_a_person` for an API key), or to nobody."""
    session = await get_owned_session(db, principal.account_uuid, session_uuid)
    if to.me:
        if principal.user_uuid is None:
            raise AppError(ErrorCode.NOT_A_PERSON, "An API key is not a person: name the person with `user_uuid`")
        user_uuid: str | None = principal.user_uuid
    else:
        user_uuid = to.user_uuid
    if user_uuid is not None:
        await taker(db, principal.account_uuid, user_uuid)
    await give(db, session, user_uuid, now, principal)
    return await work_of(db, session, now)


async def taker(db: AsyncSession, account_uuid: str, user_uuid: str) -> str:
    """The person's name if they are of the account and may take conversations, else the 404 of a missing one."""
    try:
        user = await members.member(db, account_uuid, user_uuid)
    except AppError:
        raise not_found("Person") from None
    if Role(user.role) not in TAKERS:
        raise not_found("Person")
    return user.name.strip() or user.email


async def give(
    db: AsyncSession, session: ChatSession, user_uuid: str | None, now: datetime, by: Principal | None = None
) -> None:
    """Assign the conversation (the caller checked the person may take it) and tell the operators
    (`conversation_assigned`); nothing when it is unchanged."""
    if session.assignee_uuid == user_uuid:
        return
    session_state.assign(session, user_uuid)
    name = await _name(db, session)
    data = {"assignee_uuid": user_uuid, "assignee_name": name}
    await live.record(db, session, ChatbotEventKind.CONVERSATION_ASSIGNED, now, **data, **_by(by))


async def _name(db: AsyncSession, session: ChatSession) -> str | None:
    if session.assignee_uuid is None:
        return None
    user = await members.by_uuid(db, session.assignee_uuid)
    return (user.name.strip() or user.email) if user is not None else None


def _by(principal: Principal | None) -> dict[str, str | None]:
    """Who acted, in an event: the person (null for an API key)."""
    return {"by_uuid": principal.user_uuid if principal is not None else None}


async def work_of(db: AsyncSession, session: ChatSession, now: datetime) -> Work:
    return {
        "session_uuid": session.uuid,
        "status": current_status(session.status, session.snoozed_until, now),
        "snoozed_until": iso(session.snoozed_until) if session.snoozed_until else None,
        "resolved_at": iso(session.resolved_at) if session.resolved_at else None,
        "assignee": person(session.assignee_uuid, await _name(db, session)),
        "live_chat": session.live_chat,
        "human_requested": session.human_requested,
    }


async def take_over(
    db: AsyncSession, principal: Principal, session_uuid: str, name: str | None, now: datetime
) -> ChatSession:
    """A live chat begins (`live.service.start`); a person who takes it over has it when nobody had it."""
    session = await live.start(db, principal.account_uuid, session_uuid, now, name)
    if principal.user_uuid is not None and session.assignee_uuid is None:
        await give(db, session, principal.user_uuid, now, principal)
    return session
