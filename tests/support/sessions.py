"""Chat sessions and their messages through the API and in the database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import ChatSession, Message
from tests.support.api import Api
from tests.support.database import Db


def session(api: Api, bot: str, body: Any = None) -> dict[str, Any]:
    created: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/session/create", body))
    return created


def add_messages(db: Db, session_uuid: str, *exchanges: tuple[str, str], **fields: Any) -> list[str]:
    """One message per (query, response), in order, one second apart and after the session's last message."""

    async def go(s: AsyncSession) -> list[str]:
        latest = select(Message.created_at).where(Message.session_uuid == session_uuid)
        last = (await s.execute(latest.order_by(Message.created_at.desc()).limit(1))).scalar()
        start = (last or datetime.now(UTC)) + timedelta(seconds=1)
        rows = [
            Message(session_uuid=session_uuid, query=query, response=response, created_at=start + timedelta(seconds=i))
            for i, (query, response) in enumerate(exchanges)
        ]
        for row in rows:
            for name, value in fields.items():
                setattr(row, name, value)
        s.add_all(rows)
        await s.flush()
        return [row.uuid for row in rows]

    return db.run(go)


def count(db: Db, model: type[ChatSession] | type[Message]) -> int:
    async def go(s: AsyncSession) -> int:
        return int((await s.execute(select(func.count()).select_from(model))).scalar_one())

    return db.run(go)


MESSAGE_KEYS = {
    "uuid",
    "query",
    "response",
    "finish_reason",
    "cite_data_json",
    "meta_json",
    "created_at",
    "modified_at",
    "background_pending_tasks",
    "detected_frustrations",
    "error_message",
    "feedback_json",
    "labels",
    "session_documents",
    "ai_context_json",
}
"""A message's keys: exactly those of the official SDK's `ChatMessage` (COMPAT.md)."""


def add_session(db: Db, bot: str, created_at: datetime) -> str:
    async def go(s: AsyncSession) -> str:
        row = ChatSession(chatbot_uuid=bot, meta={}, created_at=created_at, modified_at=created_at)
        s.add(row)
        await s.flush()
        return row.uuid

    return db.run(go)
