"""The team inbox's reads: one query for the listed conversations with all that each entry shows, one for the
counts of the tabs; and the per-person read marks (`conversation_read`, live's table).

It reads `chat_session` and `message` (chat's), `contact` (contacts'), `account_user` (identity's) and `channel`
(channels') in its own statements, read-only: an inbox of 200 conversations is two queries, not one per entry."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, case, exists, false, func, or_, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from botyard.live.inbox.filters import WIDGET, InboxFilter, InboxView, StatusFilter
from botyard.models import (
    Channel,
    Chatbot,
    ChatSession,
    Contact,
    ConversationRead,
    ConversationStatus,
    Message,
    MessageState,
    User,
)

MAX_LISTED = 200
"""Conversations one inbox read returns: a longer list is read as it shrinks (or narrowed by its filters)."""


@dataclass(frozen=True)
class Listed:
    """A conversation of the inbox with what its entry shows beyond its own row."""

    session: ChatSession
    first_query: str | None
    unread: int
    seen_at: datetime | None
    """When the caller last read it (a person: their own mark; an API key: the account-wide one)."""
    last_message_at: datetime | None
    unanswered_since: datetime | None
    """The customer's oldest message that nobody (bot or person) answered since the last answer."""
    assignee_name: str | None
    contact: tuple[str, str, str, str] | None
    """The contact's uuid, name, email and phone."""
    channel_type: str | None
    channel_name: str | None


@dataclass(frozen=True)
class Counts:
    mine: int
    unassigned: int
    waiting: int
    all: int


def _of_session() -> ColumnElement[bool]:
    return Message.session_uuid == ChatSession.uuid


def is_open(now: datetime) -> ColumnElement[bool]:
    """Open as of `now`: open, or snoozed until a time that has passed."""
    passed = and_(ChatSession.status == ConversationStatus.SNOOZED, ChatSession.snoozed_until <= now)
    return or_(ChatSession.status == ConversationStatus.OPEN, passed)


def _status(only: StatusFilter, now: datetime) -> ColumnElement[bool] | None:
    if only is StatusFilter.ALL:
        return None
    if only is StatusFilter.OPEN:
        return is_open(now)
    if only is StatusFilter.SNOOZED:
        still = or_(ChatSession.snoozed_until.is_(None), ChatSession.snoozed_until > now)
        return and_(ChatSession.status == ConversationStatus.SNOOZED, still)
    return ChatSession.status == only.value


def handed_to_people() -> ColumnElement[bool]:
    """What the team's inbox holds: a person was asked for, has it live or is assigned, or someone set its status
    (the bot's own conversations are only in `view=all`)."""
    return or_(
        ChatSession.human_requested.is_(True),
        ChatSession.live_chat.is_(True),
        ChatSession.assignee_uuid.is_not(None),
        ChatSession.status != ConversationStatus.OPEN,
    )


def waiting_for_a_person() -> ColumnElement[bool]:
    """Asked for a person and nobody has it: no live chat, no assignee."""
    return and_(
        ChatSession.human_requested.is_(True), ChatSession.live_chat.is_(False), ChatSession.assignee_uuid.is_(None)
    )


def _mine(user_uuid: str | None) -> ColumnElement[bool]:
    return ChatSession.assignee_uuid == user_uuid if user_uuid is not None else false()


def _view(view: InboxView, user_uuid: str | None) -> ColumnElement[bool] | None:
    match view:
        case InboxView.MINE:
            return _mine(user_uuid)
        case InboxView.UNASSIGNED:
            return and_(handed_to_people(), ChatSession.assignee_uuid.is_(None))
        case InboxView.WAITING:
            return waiting_for_a_person()
        case InboxView.TEAM:
            return handed_to_people()
    return None


def _like(column: Any, pattern: str) -> ColumnElement[bool]:
    return func.lower(column).like(pattern, escape="\\")


def _search(words: str) -> ColumnElement[bool]:
    """The words in a message's query or response (the customer's, the bot's, an operator's) or in the contact's
    name or email; case-insensitive (SQLite folds ASCII letters only)."""
    escaped = words.strip().lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    in_messages = exists().where(_of_session(), or_(_like(Message.query, pattern), _like(Message.response, pattern)))
    contacts = select(Contact.uuid).where(or_(_like(Contact.name, pattern), _like(Contact.email, pattern)))
    return or_(in_messages, ChatSession.contact_uuid.in_(contacts), _like(ChatSession.channel_user_name, pattern))


def _channel(chatbot_uuid: str, channel: str) -> ColumnElement[bool]:
    if channel == WIDGET:
        return ChatSession.channel_uuid.is_(None)
    of_type = select(Channel.uuid).where(Channel.chatbot_uuid == chatbot_uuid, Channel.type == channel)
    return ChatSession.channel_uuid.in_(of_type)


def _narrowing(chatbot_uuid: str, only: InboxFilter) -> list[ColumnElement[bool]]:
    """The filters other than the view: the tabs' counts are each view under these."""
    conditions = [ChatSession.chatbot_uuid == chatbot_uuid]
    if (status := _status(only.status, only.now)) is not None:
        conditions.append(status)
    if only.channel is not None:
        conditions.append(_channel(chatbot_uuid, only.channel))
    if only.query.strip():
        conditions.append(_search(only.query))
    return conditions


def _first_question() -> Any:
    statement = select(Message.query).where(_of_session(), Message.query != "")
    return statement.order_by(Message.created_at, Message.uuid).limit(1).scalar_subquery()


def _unanswered_since() -> Any:
    """The customer's oldest message with no answer (empty response, not being answered) after the latest row
    that answers (a bot's answer, an operator's reply, an announcement)."""
    answer = aliased(Message)
    answered = (
        select(func.max(answer.created_at))
        .where(answer.session_uuid == ChatSession.uuid, answer.response != "")
        .correlate(ChatSession)
        .scalar_subquery()
    )
    waiting = select(func.min(Message.created_at)).where(
        _of_session(),
        Message.query != "",
        Message.response == "",
        Message.state != MessageState.STREAMING,
        or_(answered.is_(None), Message.created_at > answered),
    )
    return waiting.scalar_subquery()


def order_bucket(now: datetime, unanswered: Any) -> Any:
    """Who waits longest comes first: 0 waits for a person; 1 is open and the customer's last word is unanswered;
    2 the rest."""
    return case(
        (waiting_for_a_person(), 0),
        (and_(is_open(now), unanswered.is_not(None)), 1),
        else_=2,
    )


class InboxRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def listing(self, chatbot_uuid: str, only: InboxFilter) -> list[Listed]:
        """The chatbot's conversations that pass the filter, grouped by who waits (`order_bucket`), the latest
        activity first within a group (the service orders each group exactly), at most `MAX_LISTED`."""
        read = aliased(ConversationRead)
        seen: Any = read.seen_at if only.user_uuid is not None else ChatSession.operator_seen_at
        since = or_(seen.is_(None), Message.created_at > seen)
        unread = select(func.count()).select_from(Message).where(_of_session(), Message.query != "", since)
        unanswered = _unanswered_since()
        last = select(func.max(Message.created_at)).where(_of_session()).scalar_subquery()
        statement = (
            select(
                ChatSession,
                _first_question(),
                unread.scalar_subquery(),
                seen,
                last,
                unanswered,
                User.name,
                User.email,
                Contact.uuid,
                Contact.name,
                Contact.email,
                Contact.phone,
                Channel.type,
                Channel.name,
            )
            .outerjoin(User, User.uuid == ChatSession.assignee_uuid)
            .outerjoin(Contact, Contact.uuid == ChatSession.contact_uuid)
            .outerjoin(Channel, Channel.uuid == ChatSession.channel_uuid)
            .where(*_narrowing(chatbot_uuid, only))
        )
        if only.user_uuid is not None:
            mark = and_(read.session_uuid == ChatSession.uuid, read.user_uuid == only.user_uuid)
            statement = statement.outerjoin(read, mark)
        if (view := _view(only.view, only.user_uuid)) is not None:
            statement = statement.where(view)
        statement = statement.order_by(
            order_bucket(only.now, unanswered), ChatSession.modified_at.desc(), ChatSession.uuid.desc()
        ).limit(MAX_LISTED)
        return [_listed(row) for row in (await self.session.execute(statement)).all()]

    async def counts(self, chatbot_uuid: str, only: InboxFilter) -> Counts:
        """How many conversations each tab holds under the filter's status, channel and words."""

        def total(condition: ColumnElement[bool]) -> Any:
            return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

        unassigned = and_(handed_to_people(), ChatSession.assignee_uuid.is_(None))
        statement = select(
            total(_mine(only.user_uuid)), total(unassigned), total(waiting_for_a_person()), func.count()
        ).where(*_narrowing(chatbot_uuid, only))
        mine, free, waiting, everything = (await self.session.execute(statement)).one()
        return Counts(int(mine), int(free), int(waiting), int(everything))

    async def mark_read(self, session_uuid: str, user_uuid: str, at: datetime) -> None:
        """The person has read the conversation until `at` (one row per person and conversation, kept current)."""
        dialect = self.session.get_bind().dialect.name
        insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
        statement = insert(ConversationRead).values(session_uuid=session_uuid, user_uuid=user_uuid, seen_at=at)
        statement = statement.on_conflict_do_update(
            index_elements=[ConversationRead.session_uuid, ConversationRead.user_uuid], set_={"seen_at": at}
        )
        await self.session.execute(statement)


def _listed(row: Any) -> Listed:
    (session, first, unread, seen, last, unanswered, name, email, contact, *rest) = row
    contact_name, contact_email, contact_phone, channel_type, channel_name = rest
    return Listed(
        session=session,
        first_query=first,
        unread=int(unread or 0),
        seen_at=seen,
        last_message_at=last,
        unanswered_since=unanswered,
        assignee_name=(name or "").strip() or email if session.assignee_uuid else None,
        contact=(contact, contact_name, contact_email, contact_phone) if contact is not None else None,
        channel_type=channel_type,
        channel_name=channel_name,
    )


class ContextRepository:
    """What a conversation's context shows beside it: its contact, its channel, the contact's other conversations."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def contact(self, contact_uuid: str) -> Contact | None:
        return await self.session.get(Contact, contact_uuid)

    async def channel(self, channel_uuid: str) -> tuple[str, str] | None:
        """The channel's type and name."""
        statement = select(Channel.type, Channel.name).where(Channel.uuid == channel_uuid)
        row = (await self.session.execute(statement)).first()
        return (row[0], row[1]) if row is not None else None

    async def earlier(self, account_uuid: str, contact_uuid: str, other_than: str, limit: int) -> list[Earlier]:
        """The contact's other conversations on any of the account's chatbots, the latest activity first."""
        statement = (
            select(ChatSession, Chatbot.name, Channel.type, _first_question())
            .join(Chatbot, Chatbot.uuid == ChatSession.chatbot_uuid)
            .outerjoin(Channel, Channel.uuid == ChatSession.channel_uuid)
            .where(
                Chatbot.account_uuid == account_uuid,
                ChatSession.contact_uuid == contact_uuid,
                ChatSession.uuid != other_than,
            )
            .order_by(ChatSession.modified_at.desc(), ChatSession.uuid.desc())
            .limit(limit)
        )
        return [Earlier(*row) for row in (await self.session.execute(statement)).all()]


@dataclass(frozen=True)
class Earlier:
    session: ChatSession
    chatbot_name: str
    channel_type: str | None
    first_query: str | None
