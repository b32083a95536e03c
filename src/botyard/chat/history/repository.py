"""The queries of the owner's view of conversations: the overview's figures per session, the pages an export reads,
and the idle sessions a retention period deletes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, or_, select

from botyard.chat.repository import ChatSessionRepository, SessionFilter
from botyard.db.batches import batches
from botyard.db.repository import Repository
from botyard.models import Chatbot, ChatSession, Message, MessageFeedback


@dataclass(frozen=True)
class SessionFigures:
    """A session with what the overview shows of its messages."""

    session: ChatSession
    first_query: str | None
    message_count: int
    refused_count: int
    rated_up: int
    rated_down: int


def _of_session() -> ColumnElement[bool]:
    return Message.session_uuid == ChatSession.uuid


def first_question() -> Any:
    """The session's first question (a correlated subquery on `chat_session`), NULL when it has none yet."""
    statement = select(Message.query).where(_of_session(), Message.query != "")
    return statement.order_by(Message.created_at, Message.uuid).limit(1).scalar_subquery()


def _count(*conditions: ColumnElement[bool]) -> Any:
    return select(func.count()).select_from(Message).where(_of_session(), *conditions).scalar_subquery()


def _rated(rating: str) -> Any:
    statement = (
        select(func.count()).select_from(MessageFeedback).join(Message, Message.uuid == MessageFeedback.message_uuid)
    )
    return statement.where(_of_session(), MessageFeedback.rating == rating).scalar_subquery()


class HistoryRepository(Repository[ChatSession]):
    model = ChatSession

    async def overview(self, chatbot_uuid: str, only: SessionFilter, limit: int, offset: int) -> list[SessionFigures]:
        """The chatbot's sessions that pass the filter, latest activity first, with their figures."""
        statement = (
            select(
                ChatSession,
                first_question(),
                _count(),
                _count(Message.refused.is_(True)),
                _rated("up"),
                _rated("down"),
            )
            .where(ChatSession.chatbot_uuid == chatbot_uuid, *ChatSessionRepository(self.session).conditions(only))
            .order_by(ChatSession.modified_at.desc(), ChatSession.uuid.desc())
            .limit(limit)
            .offset(offset)
        )
        rows = (await self.session.execute(statement)).all()
        return [SessionFigures(row[0], row[1], row[2], row[3], row[4], row[5]) for row in rows]

    async def waiting_of_account(self, account_uuid: str, limit: int) -> list[tuple[ChatSession, str]]:
        """The account's sessions that wait for a person (asked, and nobody has them: no operator live, no
        assignee), with their chatbot's name, the longest waiting first."""
        statement = (
            select(ChatSession, Chatbot.name)
            .join(Chatbot, Chatbot.uuid == ChatSession.chatbot_uuid)
            .where(
                Chatbot.account_uuid == account_uuid,
                ChatSession.human_requested.is_(True),
                ChatSession.live_chat.is_(False),
                ChatSession.assignee_uuid.is_(None),
            )
            .order_by(ChatSession.modified_at, ChatSession.uuid)
            .limit(limit)
        )
        return [(row[0], row[1]) for row in (await self.session.execute(statement)).all()]

    async def queries(self, message_uuids: Sequence[str]) -> dict[str, str]:
        """The query of each of these messages that still exists."""
        found: dict[str, str] = {}
        for batch in batches(list(message_uuids)):
            statement = select(Message.uuid, Message.query).where(Message.uuid.in_(batch))
            found.update({uuid: query for uuid, query in (await self.session.execute(statement)).all()})
        return found

    async def page(
        self, chatbot_uuid: str, only: SessionFilter, after: tuple[datetime, str] | None, limit: int
    ) -> Sequence[ChatSession]:
        """The next `limit` sessions that pass the filter, in creation order, after the (created_at, uuid) `after`:
        an export reads a period page by page (keyset), never all of it at once."""
        statement = select(ChatSession).where(
            ChatSession.chatbot_uuid == chatbot_uuid, *ChatSessionRepository(self.session).conditions(only)
        )
        if after is not None:
            created_at, uuid = after
            later = and_(ChatSession.created_at == created_at, ChatSession.uuid > uuid)
            statement = statement.where(or_(ChatSession.created_at > created_at, later))
        return await self.all(statement.order_by(ChatSession.created_at, ChatSession.uuid).limit(limit))

    async def messages_with_ratings(self, session_uuids: Sequence[str]) -> list[tuple[Message, str | None]]:
        """The messages of these sessions with their user's rating, oldest first within each session."""
        if not session_uuids:
            return []
        statement = (
            select(Message, MessageFeedback.rating)
            .outerjoin(MessageFeedback, MessageFeedback.message_uuid == Message.uuid)
            .where(Message.session_uuid.in_(list(session_uuids)))
            .order_by(Message.session_uuid, Message.created_at, Message.uuid)
        )
        return [(row[0], row[1]) for row in (await self.session.execute(statement)).all()]

    async def retention_days(self, chatbot_uuid: str) -> int | None:
        statement = select(Chatbot.conversation_retention_days).where(Chatbot.uuid == chatbot_uuid)
        return (await self.session.execute(statement)).scalar()

    async def idle_since(self, chatbot_uuid: str, before: datetime, limit: int) -> list[str]:
        """Up to `limit` of the chatbot's sessions whose last activity is before `before`."""
        statement = (
            select(ChatSession.uuid)
            .where(ChatSession.chatbot_uuid == chatbot_uuid, ChatSession.modified_at < before)
            .order_by(ChatSession.modified_at)
            .limit(limit)
        )
        return list((await self.session.execute(statement)).scalars())

    async def remove(self, session_uuids: Sequence[str]) -> None:
        # Their messages (and everything hanging off those) go with them through ON DELETE CASCADE.
        for batch in batches(list(session_uuids)):
            await self.session.execute(delete(ChatSession).where(ChatSession.uuid.in_(batch)))
