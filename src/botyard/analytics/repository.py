"""The analytics' queries: counts per owner's day computed by the database (`GROUP BY` the local day, which a `CASE`
over the zone's offsets gives on both databases), so a period of 100,000 messages sends back a few hundred rows.

The latency and the questions come back as (value, count) pairs: percentiles and the questions' normalised
wordings are computed from those in Python, where both databases agree.

A read may be narrowed to one channel (`Scope`): every figure then counts only the conversations held there, the
widget's and the API's (no channel) being `web`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import JSON, Date, Interval, Select, Text, case, cast, distinct, func, literal, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import ColumnElement

from botyard.analytics.period import Period
from botyard.models import (
    Channel,
    ChatbotEvent,
    ChatbotEventKind,
    ChatSession,
    ConversationOutcome,
    Message,
    MessageFeedback,
    MessageKind,
    MessageState,
    OutcomeReason,
    User,
)

HANDED_OFF = (ChatbotEventKind.HUMAN_REQUESTED.value, ChatbotEventKind.LIVE_CHAT_STARTED.value)
"""The events that hand a conversation to a person: it asked for one, or an operator took it over."""
TOP = 10
WEB = "web"
"""The scope of the conversations on no channel: the widget's and the API's."""

Scope = str | None
"""All conversations (None), those on no channel (`WEB`), or those of one channel (its uuid)."""


class Handed(NamedTuple):
    """A conversation handed to a person, as the team's figures time it."""

    channel_uuid: str | None
    assignee_uuid: str | None
    assignee_name: str | None
    handed_at: datetime | None
    """The first event that handed it over (a person asked for, an operator taking it); None: no such event."""
    asked_at: str | None
    """`meta.human_requested_at` (ISO 8601), for a conversation whose hand-off left no event."""
    first_reply_at: datetime | None
    """The first operator reply of its transcript (`MessageKind.OPERATOR`)."""
    resolved_at: datetime | None


def day_of(value: object) -> date:
    """A day as the database returns it: a `date` (PostgreSQL) or its ISO text (SQLite)."""
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _interval(seconds: int) -> ColumnElement[Any]:
    """An offset as PostgreSQL adds it to a timestamp."""
    return literal(timedelta(seconds=seconds), Interval())


def _modifier(seconds: int) -> ColumnElement[Any]:
    """An offset as SQLite's `date()` takes it."""
    return literal(f"{seconds:+d} seconds")


def _p50(count: Any) -> Any:
    return (count + 1) // 2


def _p95(count: Any) -> Any:
    return (95 * count + 99) // 100


RANKS: dict[str, Callable[[Any], Any]] = {"p50": _p50, "p95": _p95}
"""The nearest rank ceil(p * n) of each percentile in integer arithmetic: on a count in Python, or on a count
column in SQL (`//` is integer division on both databases)."""


class AnalyticsRepository:
    """The figures of one chatbot over one period."""

    def __init__(self, session: AsyncSession, chatbot_uuid: str, period: Period, scope: Scope = None) -> None:
        self.session = session
        self.chatbot_uuid = chatbot_uuid
        self.period = period
        self.scope = scope
        self.postgres = session.get_bind().dialect.name == "postgresql"

    def _on_channel(self) -> list[ColumnElement[bool]]:
        """The condition on `chat_session` of the scope (none for all conversations)."""
        if self.scope is None:
            return []
        if self.scope == WEB:
            return [ChatSession.channel_uuid.is_(None)]
        return [ChatSession.channel_uuid == self.scope]

    def _scoped_sessions(self) -> Select[Any]:
        """The uuids of the chatbot's sessions in the scope (for the tables that name a session but hold no
        channel)."""
        return select(ChatSession.uuid).where(ChatSession.chatbot_uuid == self.chatbot_uuid, *self._on_channel())

    def _local_day(self, column: InstrumentedAttribute[datetime]) -> ColumnElement[Any]:
        """The owner's day of a stored UTC time."""
        value = _interval if self.postgres else _modifier
        shifts = self.period.shifts
        shift = (
            case(*[(column < item.until, value(item.seconds)) for item in shifts[:-1]], else_=value(shifts[-1].seconds))
            if len(shifts) > 1
            else value(shifts[0].seconds)
        )
        return cast(column + shift, Date) if self.postgres else func.date(column, shift)

    def _within(self, column: InstrumentedAttribute[datetime]) -> list[ColumnElement[bool]]:
        return [column >= self.period.start, column < self.period.end]

    def _questions(self, *columns: Any) -> Select[Any]:
        """The chatbot's user messages (a non-empty query) written in the period."""
        return (
            select(*columns)
            .select_from(Message)
            .join(ChatSession, ChatSession.uuid == Message.session_uuid)
            .where(ChatSession.chatbot_uuid == self.chatbot_uuid, Message.query != "", *self._on_channel())
            .where(*self._within(Message.created_at))
        )

    async def conversations(self) -> dict[date, int]:
        """Sessions created per day."""
        inner = (
            select(self._local_day(ChatSession.created_at).label("day"))
            .where(
                ChatSession.chatbot_uuid == self.chatbot_uuid,
                *self._on_channel(),
                *self._within(ChatSession.created_at),
            )
            .subquery()
        )
        rows = await self.session.execute(select(inner.c.day, func.count()).group_by(inner.c.day))
        return {day_of(day): count for day, count in rows.all()}

    async def messages(self) -> dict[date, tuple[int, int, int]]:
        """(questions, answered, refused) per day. Answered: a reply was written and it was not a refusal."""
        answered = (Message.refused.is_(False)) & (Message.response != "") & (Message.state == MessageState.COMPLETE)
        inner = self._questions(
            self._local_day(Message.created_at).label("day"),
            case((answered, 1), else_=0).label("answered"),
            case((Message.refused.is_(True), 1), else_=0).label("refused"),
        ).subquery()
        statement = select(inner.c.day, func.count(), func.sum(inner.c.answered), func.sum(inner.c.refused))
        rows = await self.session.execute(statement.group_by(inner.c.day))
        return {day_of(day): (count, int(yes or 0), int(no or 0)) for day, count, yes, no in rows.all()}

    async def outcomes(self) -> dict[tuple[date, str], int]:
        """Conversations per (day started, outcome), of those with an outcome."""
        inner = (
            select(self._local_day(ChatSession.created_at).label("day"), ChatSession.outcome)
            .where(
                ChatSession.chatbot_uuid == self.chatbot_uuid,
                ChatSession.outcome.is_not(None),
                *self._on_channel(),
                *self._within(ChatSession.created_at),
            )
            .subquery()
        )
        statement = select(inner.c.day, inner.c.outcome, func.count()).group_by(inner.c.day, inner.c.outcome)
        return {(day_of(day), outcome): count for day, outcome, count in (await self.session.execute(statement)).all()}

    async def handed_off(self) -> list[tuple[date, str]]:
        """(day, session) for each conversation handed to a person that day (once per day)."""
        scoped = [] if self.scope is None else [ChatbotEvent.session_uuid.in_(self._scoped_sessions())]
        inner = (
            select(self._local_day(ChatbotEvent.created_at).label("day"), ChatbotEvent.session_uuid)
            .where(
                ChatbotEvent.chatbot_uuid == self.chatbot_uuid,
                ChatbotEvent.kind.in_(HANDED_OFF),
                *scoped,
                *self._within(ChatbotEvent.created_at),
            )
            .subquery()
        )
        rows = await self.session.execute(select(inner.c.day, inner.c.session_uuid).distinct())
        return [(day_of(day), session_uuid) for day, session_uuid in rows.all()]

    async def feedback(self) -> dict[tuple[date, str], int]:
        """Verdicts per (day given, rating)."""
        scoped = []
        if self.scope is not None:
            messages = select(Message.uuid).where(Message.session_uuid.in_(self._scoped_sessions()))
            scoped.append(MessageFeedback.message_uuid.in_(messages))
        inner = (
            select(self._local_day(MessageFeedback.created_at).label("day"), MessageFeedback.rating)
            .where(
                MessageFeedback.chatbot_uuid == self.chatbot_uuid, *scoped, *self._within(MessageFeedback.created_at)
            )
            .subquery()
        )
        statement = select(inner.c.day, inner.c.rating, func.count()).group_by(inner.c.day, inner.c.rating)
        return {(day_of(day), rating): count for day, rating, count in (await self.session.execute(statement)).all()}

    async def first_bytes(self) -> tuple[dict[date, dict[str, int]], dict[str, int]]:
        """The first-byte times' percentiles (`RANKS`) per day and over the period, of the questions whose answer has
        a time. Window functions rank the times in the database, so only the rows that hold a percentile come back."""
        timed = self._questions(self._local_day(Message.created_at).label("day"), Message.first_byte_ms.label("ms"))
        rows = timed.where(Message.first_byte_ms.is_not(None)).subquery()
        ranked = select(
            rows.c.day,
            rows.c.ms,
            func.row_number().over(partition_by=rows.c.day, order_by=rows.c.ms).label("day_rank"),
            func.count().over(partition_by=rows.c.day).label("day_count"),
            func.row_number().over(order_by=rows.c.ms).label("rank"),
            func.count().over().label("total"),
        ).subquery()
        c = ranked.c
        wanted = [c.day_rank == at(c.day_count) for at in RANKS.values()] + [
            c.rank == at(c.total) for at in RANKS.values()
        ]
        days: dict[date, dict[str, int]] = {}
        whole: dict[str, int] = {}
        found = (await self.session.execute(select(ranked).where(or_(*wanted)))).all()
        for day, ms, day_rank, day_count, rank, total in found:
            for name, at in RANKS.items():
                if day_rank == at(day_count):
                    days.setdefault(day_of(day), {})[name] = ms
                if rank == at(total):
                    whole[name] = ms
        return days, whole

    async def questions(self) -> list[tuple[str, int, datetime]]:
        """(question as asked, how often, last asked) for each distinct question text."""
        statement = self._questions(Message.query, func.count(), func.max(Message.created_at)).group_by(Message.query)
        return [(text, count, last) for text, count, last in (await self.session.execute(statement)).all()]

    async def cited_sources(self) -> list[tuple[str, str, int]]:
        """(data_source_uuid, title as cited, answers citing it) of the most cited sources, the most cited first."""
        if self.postgres:
            citations = Message.cite_data
            objects = case((func.json_typeof(citations) == "object", citations), else_=cast(literal("{}"), JSON))
            entries = func.json_each(objects).table_valued("key", "value")
            source = func.json_extract_path_text(entries.c.value, "data_source_uuid")
            title = func.json_extract_path_text(entries.c.value, "title")
        else:
            entries = func.json_each(Message.cite_data).table_valued("key", "value")
            source = func.json_extract(entries.c.value, "$.data_source_uuid")
            title = func.json_extract(entries.c.value, "$.title")
        inner = (
            self._questions(source.label("source"), title.label("title"), Message.uuid.label("message"))
            .where(cast(Message.cite_data, Text) != "{}")  # most answers cite nothing: skip them unparsed
            .join(entries, true())
            .subquery()
        )
        cited = func.count(distinct(inner.c.message))
        statement = (
            select(inner.c.source, func.max(inner.c.title), cited)
            .where(inner.c.source.is_not(None))
            .group_by(inner.c.source)
            .order_by(cited.desc(), inner.c.source)
            .limit(TOP)
        )
        rows = (await self.session.execute(statement)).all()
        return [(str(uuid), str(name or ""), count) for uuid, name, count in rows]

    async def channel_of_chatbot(self, channel_uuid: str) -> bool:
        """Whether the channel is one of this chatbot's."""
        statement = select(Channel.uuid).where(Channel.uuid == channel_uuid, Channel.chatbot_uuid == self.chatbot_uuid)
        return (await self.session.execute(statement)).first() is not None

    async def channels(self) -> list[tuple[str, str, str]]:
        """(uuid, type, name) of the chatbot's channels in the scope, oldest first."""
        statement = select(Channel.uuid, Channel.type, Channel.name).where(Channel.chatbot_uuid == self.chatbot_uuid)
        if self.scope is not None:
            statement = statement.where(Channel.uuid == self.scope)
        rows = await self.session.execute(statement.order_by(Channel.created_at, Channel.uuid))
        return [(uuid, kind, name) for uuid, kind, name in rows.all()]

    async def outcomes_by_channel(self) -> dict[str | None, dict[str, int]]:
        """Per channel (None: no channel), the conversations started in the period and their outcomes: each
        `ConversationOutcome`'s count, and of the unresolved ones those left `unsure` and with `no_answer`."""
        unresolved = ChatSession.outcome == ConversationOutcome.UNRESOLVED
        counted = {
            "conversations": func.count(),
            **{outcome.value: _count(ChatSession.outcome == outcome) for outcome in ConversationOutcome},
            "unsure": _count(unresolved & (ChatSession.outcome_reason == OutcomeReason.UNSURE)),
            "no_answer": _count(unresolved & (ChatSession.outcome_reason == OutcomeReason.NO_ANSWER)),
        }
        statement = (
            select(ChatSession.channel_uuid, *counted.values())
            .where(
                ChatSession.chatbot_uuid == self.chatbot_uuid,
                *self._on_channel(),
                *self._within(ChatSession.created_at),
            )
            .group_by(ChatSession.channel_uuid)
        )
        rows = (await self.session.execute(statement)).all()
        return {row[0]: dict(zip(counted, (int(value or 0) for value in row[1:]), strict=True)) for row in rows}

    async def handed(self) -> list[Handed]:
        """The conversations started in the period whose outcome is `handed_off`, each with its assignee, when it was
        handed over, its first operator reply and when a person resolved it: one row a conversation, as few as the
        team takes (the times' percentiles are computed from them)."""
        handed = (
            select(ChatbotEvent.session_uuid.label("session"), func.min(ChatbotEvent.created_at).label("at"))
            .where(ChatbotEvent.chatbot_uuid == self.chatbot_uuid, ChatbotEvent.kind.in_(HANDED_OFF))
            .group_by(ChatbotEvent.session_uuid)
            .subquery()
        )
        first_reply = (
            select(func.min(Message.created_at))
            .where(Message.session_uuid == ChatSession.uuid, Message.query == "")
            .where(self._json_text(Message.meta, "kind") == MessageKind.OPERATOR.value)
            .scalar_subquery()
        )
        statement = (
            select(
                ChatSession.channel_uuid,
                ChatSession.assignee_uuid,
                User.name,
                handed.c.at,
                self._json_text(ChatSession.meta, "human_requested_at"),
                first_reply,
                ChatSession.resolved_at,
            )
            .outerjoin(handed, handed.c.session == ChatSession.uuid)
            .outerjoin(User, User.uuid == ChatSession.assignee_uuid)
            .where(
                ChatSession.chatbot_uuid == self.chatbot_uuid,
                ChatSession.outcome == ConversationOutcome.HANDED_OFF,
                *self._on_channel(),
                *self._within(ChatSession.created_at),
            )
        )
        return [Handed(*row) for row in (await self.session.execute(statement)).all()]

    def _json_text(self, column: InstrumentedAttribute[Any], key: str) -> ColumnElement[Any]:
        """The text of a top-level key of a JSON column (SQL NULL when it is missing)."""
        if self.postgres:
            return func.json_extract_path_text(column, key)
        return func.json_extract(column, f"$.{key}")

    async def questions_by_channel(self) -> dict[str | None, int]:
        """Per channel (None: no channel), the questions asked in the period."""
        statement = self._questions(ChatSession.channel_uuid, func.count()).group_by(ChatSession.channel_uuid)
        return {channel: count for channel, count in (await self.session.execute(statement)).all()}


def _count(condition: ColumnElement[bool]) -> ColumnElement[Any]:
    """How many rows of the group meet the condition."""
    return func.sum(case((condition, 1), else_=0))
