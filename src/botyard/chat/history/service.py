"""The owner's view of conversations: the overview, the exports (read page by page, each page in its own short
transaction, so a long period streams in constant memory), and the retention period."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.history.export import csv_header, csv_rows, export_rows, json_conversation
from botyard.chat.history.repository import HistoryRepository, SessionFigures
from botyard.chat.history.retention import schedule_purge
from botyard.chat.history.schemas import (
    PREVIEW_LENGTH,
    Conversation,
    ConversationChannel,
    ExportFormat,
    ExportRow,
    Retention,
)
from botyard.chat.repository import SessionFilter
from botyard.chat.service import get_owned_session
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.db.session import Database
from botyard.models import ChatSession, SessionMeta

EXPORT_PAGE = 100
"""Sessions read per transaction of an export."""


async def overview(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, only: SessionFilter, limit: int, offset: int
) -> list[Conversation]:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return [_conversation(found) for found in await HistoryRepository(db).overview(chatbot.uuid, only, limit, offset)]


def _conversation(found: SessionFigures) -> Conversation:
    session, meta = found.session, SessionMeta.of(found.session)
    return {
        "uuid": session.uuid,
        "created_at": iso(session.created_at),
        "modified_at": iso(session.modified_at),
        "preview": preview(found.first_query),
        "message_count": found.message_count,
        "refused_count": found.refused_count,
        "rated_up": found.rated_up,
        "rated_down": found.rated_down,
        "human_requested": session.human_requested,
        "live_chat": session.live_chat,
        "handed_off": session.human_requested or session.live_chat or meta.human_requested_at is not None,
        "outcome": session.outcome,
        "outcome_reason": session.outcome_reason,
        "tags": meta.tags,
        "channel": conversation_channel(session),
    }


def conversation_channel(session: ChatSession) -> ConversationChannel | None:
    """The channel a conversation is held on, with its customer there (None: the widget or the API)."""
    if session.channel_uuid is None:
        return None
    return {"uuid": session.channel_uuid, "user_id": session.channel_user, "user_name": session.channel_user_name}


async def waiting(db: AsyncSession, account_uuid: str, limit: int) -> list[tuple[ChatSession, str, str | None]]:
    """The account's sessions waiting for a person, each with its chatbot's name and the query that asked."""
    repository = HistoryRepository(db)
    found = await repository.waiting_of_account(account_uuid, limit)
    asked = {session.uuid: SessionMeta.of(session).human_requested_message for session, _ in found}
    queries = await repository.queries([uuid for uuid in asked.values() if uuid])
    return [(session, name, queries.get(asked[session.uuid] or "")) for session, name in found]


def preview(text: str | None) -> str:
    """A question as a list shows it: on one line, at most `PREVIEW_LENGTH` characters."""
    line = " ".join((text or "").split())
    return line[: PREVIEW_LENGTH - 1] + "…" if len(line) > PREVIEW_LENGTH else line


async def owned_chatbot_uuid(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> str:
    """The chatbot's uuid if the account owns it, else the 404 (checked before an export starts streaming)."""
    return (await get_owned_chatbot(db, account_uuid, chatbot_uuid)).uuid


async def owned_session(db: AsyncSession, account_uuid: str, session_uuid: str) -> tuple[str, SessionFilter]:
    """The session's chatbot and a filter that picks only that session, or the 404."""
    session = await get_owned_session(db, account_uuid, session_uuid)
    return session.chatbot_uuid, SessionFilter(session_uuid=session.uuid)


async def export(database: Database, chatbot_uuid: str, only: SessionFilter, form: ExportFormat) -> AsyncIterator[str]:
    """The sessions the filter picks, in creation order, as CSV (a row per turn) or a JSON array."""
    yield csv_header() if form == ExportFormat.CSV else "["
    first = True
    async for session, rows in _pages(database, chatbot_uuid, only):
        if form == ExportFormat.CSV:
            if rows:
                yield csv_rows(rows)
        else:
            yield ("\n" if first else ",\n") + json_conversation(session, rows)
        first = False
    if form == ExportFormat.JSON:
        yield "\n]\n" if not first else "]\n"


async def _pages(
    database: Database, chatbot_uuid: str, only: SessionFilter
) -> AsyncIterator[tuple[ChatSession, list[ExportRow]]]:
    after: tuple[datetime, str] | None = None
    while True:
        async with database.transaction(write=False) as db:
            repository = HistoryRepository(db)
            sessions = await repository.page(chatbot_uuid, only, after, EXPORT_PAGE)
            found = await repository.messages_with_ratings([session.uuid for session in sessions])
        rows: dict[str, list[ExportRow]] = {session.uuid: [] for session in sessions}
        for message, rating in found:
            rows[message.session_uuid] += export_rows(message, rating)
        for session in sessions:
            yield session, rows[session.uuid]
        if len(sessions) < EXPORT_PAGE:
            return
        after = (sessions[-1].created_at, sessions[-1].uuid)


async def get_retention(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Retention:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return {"chatbot_uuid": chatbot.uuid, "retention_days": chatbot.conversation_retention_days}


async def set_retention(db: AsyncSession, account_uuid: str, chatbot_uuid: str, days: int | None) -> Retention:
    """Keep the chatbot's conversations `days` after their last activity (None: forever); a purge runs at once."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    chatbot.conversation_retention_days = days
    await schedule_purge(db, chatbot.uuid, days)
    return {"chatbot_uuid": chatbot.uuid, "retention_days": days}
