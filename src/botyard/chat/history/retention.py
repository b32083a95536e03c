"""A chatbot's retention period: conversations idle (no activity, `modified_at`) for longer than its
`conversation_retention_days` are deleted with their messages.

Like the re-sync schedule (`crawl.sync`), it is a chain of jobs per chatbot: setting the period replaces the waiting
`purge_conversations` job with one due now, and each run queues the next one an hour later, so exactly one is queued
while a period is set and none once it is cleared. It runs in `botyard serve`'s in-process runner or any
`botyard worker`; a run deletes in batches, each in its own transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.history.repository import HistoryRepository
from botyard.db.base import utcnow
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import JobKind, PurgeConversations
from botyard.jobs.service import drop_queued_of_chatbot, enqueue

PURGE_INTERVAL = timedelta(hours=1)
PURGE_BATCH = 500


async def schedule_purge(db: AsyncSession, chatbot_uuid: str, days: int | None, at: datetime | None = None) -> None:
    """Replace the chatbot's waiting purge with one at `at` (now when not given); none when `days` is None."""
    await drop_queued_of_chatbot(db, JobKind.PURGE_CONVERSATIONS, chatbot_uuid)
    if days is not None:
        await enqueue(db, PurgeConversations(chatbot_uuid), chatbot_uuid=chatbot_uuid, run_after=at or utcnow())
    await db.flush()


def idle_limit(days: int, now: datetime) -> datetime:
    """Conversations whose last activity is before this moment are past the retention period."""
    return now - timedelta(days=days)


class ConversationPurger:
    """The job handler for `purge_conversations`. Idempotent: a run deletes what is past the period when it runs."""

    payload_type = PurgeConversations
    timeout_seconds = 600.0

    async def run(self, ctx: JobContext[PurgeConversations]) -> None:
        chatbot_uuid = ctx.payload.chatbot_uuid
        days = await ctx.read(lambda db: HistoryRepository(db).retention_days(chatbot_uuid))
        if days is not None:
            before = idle_limit(days, utcnow())
            while await ctx.write(lambda db: self._delete_batch(db, chatbot_uuid, before)) == PURGE_BATCH:
                pass
        await ctx.finish(lambda db: self._next(db, chatbot_uuid))

    @staticmethod
    async def _delete_batch(db: AsyncSession, chatbot_uuid: str, before: datetime) -> int:
        repository = HistoryRepository(db)
        idle = await repository.idle_since(chatbot_uuid, before, PURGE_BATCH)
        await repository.remove(idle)
        return len(idle)

    @staticmethod
    async def _next(db: AsyncSession, chatbot_uuid: str) -> None:
        """Queue the next run, unless the period was cleared (or the chatbot deleted) meanwhile."""
        days = await HistoryRepository(db).retention_days(chatbot_uuid)
        if days is not None:
            await schedule_purge(db, chatbot_uuid, days, utcnow() + PURGE_INTERVAL)

    async def give_up(self, session: AsyncSession, payload: PurgeConversations, reason: str) -> None:
        """A failed run still hands on to the next one: without it the period would stop being applied."""
        await self._next(session, payload.chatbot_uuid)
