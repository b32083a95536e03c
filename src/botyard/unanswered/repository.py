"""The unanswered questions' rows. SQL lives here only."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import update

from botyard.db.batches import batches
from botyard.db.repository import Repository
from botyard.models import UnansweredQuestion, UnansweredStatus


class UnansweredRepository(Repository[UnansweredQuestion]):
    model = UnansweredQuestion
    noun = "Unanswered question"

    async def open_questions(
        self, chatbot_uuid: str, start: datetime | None, end: datetime | None, limit: int
    ) -> list[UnansweredQuestion]:
        """The chatbot's open questions asked between `start` and `end` (inclusive), newest first, at most `limit`."""
        row = UnansweredQuestion
        statement = self.select().where(row.chatbot_uuid == chatbot_uuid, row.status == UnansweredStatus.OPEN.value)
        if start is not None:
            statement = statement.where(row.created_at >= start)
        if end is not None:
            statement = statement.where(row.created_at <= end)
        statement = statement.order_by(row.created_at.desc(), row.uuid.desc()).limit(limit)
        return list(await self.all(statement))

    async def open_of(self, chatbot_uuid: str, uuids: Sequence[str]) -> list[UnansweredQuestion]:
        """Those of `uuids` that are open questions of the chatbot."""
        row = UnansweredQuestion
        found: list[UnansweredQuestion] = []
        for batch in batches(list(dict.fromkeys(uuids))):
            statement = self.select().where(
                row.chatbot_uuid == chatbot_uuid, row.status == UnansweredStatus.OPEN.value, row.uuid.in_(batch)
            )
            found += await self.all(statement)
        return found

    async def close(
        self, uuids: Sequence[str], status: UnansweredStatus, now: datetime, data_source_uuid: str | None = None
    ) -> int:
        """Mark the open questions `uuids` answered (with their Q&A source) or dismissed; how many were open."""
        row = UnansweredQuestion
        closed = 0
        for batch in batches(list(dict.fromkeys(uuids))):
            statement = (
                update(row)
                .where(row.uuid.in_(batch), row.status == UnansweredStatus.OPEN.value)
                .values(status=status.value, resolved_at=now, data_source_uuid=data_source_uuid)
            )
            result = await self.session.execute(statement)
            closed += int(getattr(result, "rowcount", 0) or 0)
        return closed

    async def of_messages(self, chatbot_uuid: str, message_uuids: Sequence[str]) -> list[UnansweredQuestion]:
        """The chatbot's rows (open or closed) of those messages."""
        row = UnansweredQuestion
        found: list[UnansweredQuestion] = []
        for batch in batches(list(dict.fromkeys(message_uuids))):
            found += await self.all(self.select().where(row.chatbot_uuid == chatbot_uuid, row.message_uuid.in_(batch)))
        return found

    async def settle(
        self, uuids: Sequence[str], status: UnansweredStatus, now: datetime, data_source_uuid: str | None
    ) -> None:
        """Close the rows `uuids` as `status`, whatever they were (a thumbs-down can bring a closed one back)."""
        row = UnansweredQuestion
        for batch in batches(list(dict.fromkeys(uuids))):
            statement = (
                update(row)
                .where(row.uuid.in_(batch))
                .values(status=status.value, resolved_at=now, data_source_uuid=data_source_uuid)
            )
            await self.session.execute(statement)
