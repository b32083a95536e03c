"""The feedback rows. SQL lives here only."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from botyard.db.batches import batches
from botyard.db.repository import Repository
from botyard.models import ChatSession, Message, MessageFeedback


class FeedbackRepository(Repository[MessageFeedback]):
    model = MessageFeedback

    async def put(self, message: Message, chatbot_uuid: str, rating: str, comment: str, now: datetime) -> None:
        """Store the verdict on `message`, replacing an earlier one. An upsert, so two verdicts sent at once on
        PostgreSQL (whose write transactions run side by side) end as one row, the later one, not a key conflict."""
        insert = postgresql.insert if self.session.get_bind().dialect.name == "postgresql" else sqlite.insert
        values = {"rating": rating, "comment": comment, "created_at": now}
        statement = insert(MessageFeedback).values(message_uuid=message.uuid, chatbot_uuid=chatbot_uuid, **values)
        await self.session.execute(statement.on_conflict_do_update(index_elements=["message_uuid"], set_=values))

    async def of_messages(self, uuids: Sequence[str]) -> list[MessageFeedback]:
        found: list[MessageFeedback] = []
        for batch in batches(list(dict.fromkeys(uuids))):
            found += await self.all(select(MessageFeedback).where(MessageFeedback.message_uuid.in_(batch)))
        return found

    async def of_chatbot(
        self, chatbot_uuid: str, rating: str | None, limit: int, offset: int
    ) -> list[tuple[MessageFeedback, Message]]:
        """The chatbot's verdicts with their messages, newest first (ties in a stable order), one page of them."""
        statement = (
            select(MessageFeedback, Message)
            .join(Message, Message.uuid == MessageFeedback.message_uuid)
            .join(ChatSession, ChatSession.uuid == Message.session_uuid)
            .where(MessageFeedback.chatbot_uuid == chatbot_uuid, ChatSession.chatbot_uuid == chatbot_uuid)
        )
        if rating is not None:
            statement = statement.where(MessageFeedback.rating == rating)
        statement = statement.order_by(MessageFeedback.created_at.desc(), MessageFeedback.message_uuid.desc())
        rows = await self.session.execute(statement.limit(limit).offset(offset))
        return [(row[0], row[1]) for row in rows]
