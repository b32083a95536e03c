"""Sets that run after each knowledge change (`run_after_changes`): a chain of `watch_test_sets` jobs per chatbot,
like the conversations' purge (`chat.history.retention`). Each looks, once a minute, whether the chatbot's knowledge
version moved past the one its sets' newest runs asked with, queues a run (`trigger` `knowledge`) for each set that
is behind, and queues the next look while a set of the chatbot still wants it. Changes within a minute (a batch of
uploads) make one run; a set gets its first run, its baseline, at the first look."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import utcnow
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import WatchTestSets
from botyard.testsets.repository import TestRunRepository, TestSetRepository
from botyard.testsets.service import queue_run, schedule_watch

WATCH_INTERVAL = timedelta(minutes=1)


async def look(db: AsyncSession, chatbot_uuid: str, now: datetime) -> bool:
    """Queue a run for each watched set of the chatbot whose newest run is behind its knowledge; whether any set
    of the chatbot is still watched."""
    watched = await TestSetRepository(db).watched(chatbot_uuid)
    for found, version in watched:
        newest = await TestRunRepository(db).latest_version(found.uuid)
        if newest is None or version > newest:
            await queue_run(db, found, "knowledge", now, version)
    return bool(watched)


class TestSetWatcher:
    """The job handler for `watch_test_sets`."""

    __test__ = False
    payload_type = WatchTestSets
    timeout_seconds = 60.0

    async def run(self, ctx: JobContext[WatchTestSets]) -> None:
        chatbot_uuid = ctx.payload.chatbot_uuid
        await ctx.finish(lambda db: _look_and_next(db, chatbot_uuid))

    async def give_up(self, session: AsyncSession, payload: WatchTestSets, reason: str) -> None:
        """A failed look still hands on to the next one."""
        await schedule_watch(session, payload.chatbot_uuid, utcnow() + WATCH_INTERVAL)


async def _look_and_next(db: AsyncSession, chatbot_uuid: str) -> None:
    now = utcnow()
    if await look(db, chatbot_uuid, now):
        await schedule_watch(db, chatbot_uuid, now + WATCH_INTERVAL)
