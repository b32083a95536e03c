"""Chat sessions and messages, always reached through the chatbot that owns them (and so the account)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, case, cast, delete, exists, func, literal, or_, select, update
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import load_only

from botyard.db.batches import batches
from botyard.db.repository import ChatbotPartRepository, Repository
from botyard.models import (
    Chatbot,
    ChatSession,
    ConversationOutcome,
    ConversationStatus,
    Message,
    MessageFeedback,
    MessageState,
    OutcomeReason,
)


class FeedbackFilter(StrEnum):
    """Which sessions by their answers' ratings (`message_feedback`)."""

    ANY = "any"
    UP = "up"
    DOWN = "down"
    NONE = "none"


def outcome_values(outcome: ConversationOutcome, reason: OutcomeReason | None) -> dict[str, Any]:
    """The columns that make the outcome `outcome`: handed off stays handed off (a person was involved), and a
    hand-off right after an unresolved answer keeps that answer's reason (why the visitor asked for a person)."""
    handed = ChatSession.outcome == ConversationOutcome.HANDED_OFF.value
    why: Any = literal(reason.value if reason is not None else None, ChatSession.outcome_reason.type)
    if outcome is ConversationOutcome.HANDED_OFF:
        why = case((ChatSession.outcome == ConversationOutcome.UNRESOLVED.value, ChatSession.outcome_reason), else_=why)
    return {
        "outcome": case((handed, ChatSession.outcome), else_=literal(outcome.value, ChatSession.outcome.type)),
        "outcome_reason": case((handed, ChatSession.outcome_reason), else_=why),
    }


NO_CHANNEL = frozenset({"web", "none"})
"""The `channel` filter's words for the conversations of the widget and the API: `web`, as analytics says it, and
`none`, its first spelling."""


@dataclass(frozen=True)
class SessionFilter:
    """Which of a chatbot's sessions to list: created at or after `created_from` and strictly before
    `created_before`, flagged for operators or not and in a live chat or not (`None`: either), with every tag of
    `tags`."""

    created_from: datetime | None = None
    created_before: datetime | None = None
    human_requested: bool | None = None
    live_chat: bool | None = None
    tags: tuple[str, ...] = ()
    refused: bool | None = None
    """With at least one answer that was a refusal (`Message.refused`), or with none."""
    handed_off: bool | None = None
    """Ever handed to a person (asked for one, or an operator took it over), or never."""
    feedback: FeedbackFilter | None = None
    """With any rated answer (`any`), one rated `up` or `down`, or with no rated answer (`none`)."""
    session_uuid: str | None = None
    """Only this session."""
    channel: str | None = None
    """Only the sessions of this channel (its uuid), or of none (`none`: the widget and the API)."""


class ChatSessionRepository(ChatbotPartRepository[ChatSession]):
    model = ChatSession

    noun = "Session"

    async def of_chatbot(self, chatbot_uuid: str, only: SessionFilter | None = None) -> Sequence[ChatSession]:
        """The chatbot's sessions that pass the filter, oldest first."""
        statement = select(ChatSession).where(ChatSession.chatbot_uuid == chatbot_uuid)
        if only is not None:
            statement = statement.where(*self.conditions(only))
        return await self.all(statement.order_by(ChatSession.created_at, ChatSession.uuid))

    def conditions(self, only: SessionFilter) -> list[ColumnElement[bool]]:
        """The SQL conditions on `chat_session` of the filter."""
        conditions: list[ColumnElement[bool]] = []
        if only.created_from is not None:
            conditions.append(ChatSession.created_at >= only.created_from)
        if only.created_before is not None:
            conditions.append(ChatSession.created_at < only.created_before)
        if only.human_requested is not None:
            conditions.append(ChatSession.human_requested.is_(only.human_requested))
        if only.live_chat is not None:
            conditions.append(ChatSession.live_chat.is_(only.live_chat))
        conditions += [self._has_tag(tag) for tag in only.tags]
        if only.refused is not None:
            refused = exists().where(Message.session_uuid == ChatSession.uuid, Message.refused.is_(True))
            conditions.append(refused if only.refused else ~refused)
        if only.handed_off is not None:
            handed = or_(ChatSession.human_requested.is_(True), ChatSession.live_chat.is_(True), self._was_flagged())
            conditions.append(handed if only.handed_off else ~handed)
        if only.feedback is not None:
            conditions.append(self._rated(only.feedback))
        if only.session_uuid is not None:
            conditions.append(ChatSession.uuid == only.session_uuid)
        if only.channel in NO_CHANNEL:
            conditions.append(ChatSession.channel_uuid.is_(None))
        elif only.channel is not None:
            conditions.append(ChatSession.channel_uuid == only.channel)
        return conditions

    def _was_flagged(self) -> ColumnElement[bool]:
        """A person was asked for at some time (`meta.human_requested_at`, kept after a live chat ends)."""
        if self.session.get_bind().dialect.name == "postgresql":
            flagged: ColumnElement[bool] = cast(ChatSession.meta, JSONB).has_key("human_requested_at")
            return flagged
        return func.json_extract(ChatSession.meta, "$.human_requested_at").is_not(None)

    def _rated(self, which: FeedbackFilter) -> ColumnElement[bool]:
        rated = select(1).where(MessageFeedback.message_uuid == Message.uuid, Message.session_uuid == ChatSession.uuid)
        if which in (FeedbackFilter.UP, FeedbackFilter.DOWN):
            rated = rated.where(MessageFeedback.rating == which.value)
        return ~rated.exists() if which == FeedbackFilter.NONE else rated.exists()

    def _has_tag(self, tag: str) -> ColumnElement[bool]:
        """The session's `meta.tags` (a JSON list of names) holds `tag`."""
        if self.session.get_bind().dialect.name == "postgresql":
            return cast(ChatSession.meta, JSONB)["tags"].contains([tag])
        names = func.json_each(ChatSession.meta, "$.tags").table_valued("value")
        return exists(select(1).select_from(names).where(names.c.value == tag))

    async def with_chatbot(self, session_uuid: str) -> tuple[ChatSession, Chatbot] | None:
        """The session and its chatbot, whoever owns them (the caller decides who may use them)."""
        row = (
            await self.session.execute(
                select(ChatSession, Chatbot)
                .join(Chatbot, Chatbot.uuid == ChatSession.chatbot_uuid)
                .where(ChatSession.uuid == session_uuid)
            )
        ).first()
        return None if row is None else (row[0], row[1])

    async def on_channel(self, channel_uuid: str, user: str, thread: str, active_since: datetime) -> ChatSession | None:
        """The latest session of an external user in a channel's thread, if it was active since `active_since`."""
        statement = (
            select(ChatSession)
            .where(
                ChatSession.channel_uuid == channel_uuid,
                ChatSession.channel_user == user,
                ChatSession.channel_thread == thread,
                ChatSession.modified_at >= active_since,
            )
            .order_by(ChatSession.modified_at.desc())
            .limit(1)
        )
        return await self.one_or_none(statement)

    async def touch(self, session_uuid: str, at: datetime) -> None:
        """The session had activity at `at`: its `modified_at` moves there (never back)."""
        await self.session.execute(
            update(ChatSession)
            .where(ChatSession.uuid == session_uuid, ChatSession.modified_at < at)
            .values(modified_at=at)
        )

    async def customer_wrote(self, session_uuid: str, at: datetime) -> None:
        """The customer wrote at `at`: `touch`, and a pending, snoozed or resolved conversation is open again (the
        team has something to answer), in one statement."""
        later = case(
            (ChatSession.modified_at < at, literal(at, ChatSession.modified_at.type)), else_=ChatSession.modified_at
        )
        reopened = {
            "status": ConversationStatus.OPEN.value,
            "snoozed_until": None,
            "resolved_at": None,
            "modified_at": later,
        }
        await self.session.execute(update(ChatSession).where(ChatSession.uuid == session_uuid).values(reopened))

    async def outcome_counts(self, since: datetime) -> dict[str, int]:
        statement = (
            select(ChatSession.outcome, func.count())
            .where(ChatSession.created_at >= since)
            .group_by(ChatSession.outcome)
        )
        return {outcome or "none": count for outcome, count in (await self.session.execute(statement)).all()}

    async def set_outcome(self, session_uuid: str, outcome: ConversationOutcome, reason: OutcomeReason | None) -> None:
        """The conversation's outcome is now `outcome` (`outcome_values`)."""
        statement = update(ChatSession).where(ChatSession.uuid == session_uuid)
        await self.session.execute(statement.values(outcome_values(outcome, reason)))

    async def answered(
        self, session_uuid: str, at: datetime, outcome: ConversationOutcome, reason: OutcomeReason | None
    ) -> None:
        """An answer at `at` decided the conversation's outcome: `touch` and `set_outcome` in one statement (one
        round trip less on every answer)."""
        later = case(
            (ChatSession.modified_at < at, literal(at, ChatSession.modified_at.type)), else_=ChatSession.modified_at
        )
        values = {**outcome_values(outcome, reason), "modified_at": later}
        await self.session.execute(update(ChatSession).where(ChatSession.uuid == session_uuid).values(values))

    async def remove(self, session_uuid: str) -> None:
        # Its messages go with it through ON DELETE CASCADE.
        await self.session.execute(delete(ChatSession).where(ChatSession.uuid == session_uuid))


class MessageRepository(Repository[Message]):
    model = Message

    async def of_session(self, session_uuid: str) -> Sequence[Message]:
        return await self.all(
            select(Message).where(Message.session_uuid == session_uuid).order_by(Message.created_at, Message.uuid)
        )

    async def recent_finished(self, session_uuid: str, limit: int) -> list[Message]:
        """The session's last `limit` finished messages (not the ones still streaming), oldest first, as exchanges:
        their query, response and meta only. Every answer reads its session's last turns: their `cite_data` (the
        cited chunks' texts, several KB a message) was decoded for nothing."""
        exchange = load_only(
            Message.uuid,
            Message.session_uuid,
            Message.query,
            Message.response,
            Message.meta,
            Message.state,
            Message.created_at,
            raiseload=True,
        )
        newest = await self.all(
            select(Message)
            .options(exchange)
            .where(Message.session_uuid == session_uuid, Message.state != MessageState.STREAMING)
            .order_by(Message.created_at.desc(), Message.uuid.desc())
            .limit(limit)
        )
        return list(reversed(newest))

    async def by_uuids(self, uuids: Sequence[str]) -> Sequence[Message]:
        if not uuids:
            return []
        return await self.all(select(Message).where(Message.uuid.in_(list(uuids))))

    async def set_values(self, uuid: str, values: dict[str, Any], *, state: str | None = None) -> bool:
        """Update the message's columns in one statement, without loading it (only while it is in `state`, when
        given); False when no message was updated. (A message loaded earlier in the same session keeps its old
        values: use `update` on loaded ones.)"""
        statement = update(Message).where(Message.uuid == uuid, *([Message.state == state] if state else []))
        statement = statement.values(values)
        result = await self.session.execute(statement.execution_options(synchronize_session=False))
        return bool(getattr(result, "rowcount", 0))

    async def streaming(self) -> Sequence[Message]:
        return await self.all(select(Message).where(Message.state == MessageState.STREAMING))

    async def owned_among(self, account_uuid: str, uuids: Sequence[str]) -> Sequence[Message]:
        """The messages among `uuids` that belong to a session of one of the account's chatbots."""
        found: list[Message] = []
        for batch in batches(list(uuids)):
            found += await self.all(
                select(Message)
                .join(ChatSession, ChatSession.uuid == Message.session_uuid)
                .join(Chatbot, Chatbot.uuid == ChatSession.chatbot_uuid)
                .where(Message.uuid.in_(batch), Chatbot.account_uuid == account_uuid)
            )
        return found

    async def transcript_rows(self, session_uuids: Sequence[str]) -> Sequence[Message]:
        """The live-chat rows (no query: announcements, operators' replies) of those sessions, oldest first."""
        found: list[Message] = []
        for batch in batches(list(dict.fromkeys(session_uuids))):
            statement = select(Message).where(Message.session_uuid.in_(batch), Message.query == "")
            found += await self.all(statement.order_by(Message.created_at, Message.uuid))
        return found

    async def latest_of_chatbot(self, chatbot_uuid: str, limit: int) -> Sequence[Message]:
        """The chatbot's latest answered messages (a query and its finished answer), newest first."""
        statement = (
            select(Message)
            .join(ChatSession, ChatSession.uuid == Message.session_uuid)
            .where(ChatSession.chatbot_uuid == chatbot_uuid, Message.query != "")
            .where(Message.state != MessageState.STREAMING)
            .order_by(Message.created_at.desc(), Message.uuid.desc())
            .limit(limit)
        )
        return await self.all(statement)

    async def of_chatbot_among(self, chatbot_uuid: str, uuids: Sequence[str]) -> Sequence[Message]:
        """The messages among `uuids` that belong to a session of the chatbot."""
        found: list[Message] = []
        for batch in batches(list(dict.fromkeys(uuids))):
            found += await self.all(
                select(Message)
                .join(ChatSession, ChatSession.uuid == Message.session_uuid)
                .where(Message.uuid.in_(batch), ChatSession.chatbot_uuid == chatbot_uuid)
            )
        return found

    async def remove(self, uuids: Sequence[str]) -> None:
        for batch in batches(list(uuids)):
            await self.session.execute(delete(Message).where(Message.uuid.in_(batch)))
