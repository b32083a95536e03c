"""What wakes the event streams: one watcher per process, instead of a database query per open stream twice a
second (300 idle streams took a core that way).

Each stream subscribes to its topic (`chatbot:<uuid>` for an operator's stream, `session:<uuid>` for a widget's),
waits on its bell, and reads the database only when rung. The watcher learns of new events:

- on PostgreSQL from `NOTIFY`, sent in the transaction that writes the event (`announce`) and so delivered exactly
  when the event is committed, to every process and machine, on one `LISTEN` connection per process;
- on SQLite, which has no notifications, by reading the events after the last one it saw, once every
  `POLL_SECONDS` for the whole process. SQLite commits one writer at a time, so ids appear in commit order and none
  is skipped.

Whenever the watcher may have missed something (it starts, or its `LISTEN` connection is lost and comes back), it
rings every bell: a stream reads the database once too often, never too rarely.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.session import Database
from botyard.live.repository import ChatbotEventRepository
from botyard.models import ChatbotEvent

log = logging.getLogger(__name__)

CHANNEL = "botyard_events"
POLL_SECONDS = 0.5
"""SQLite: how often the process looks for new events (the latency of an operator's reply in the widget)."""
LISTEN_CHECK_SECONDS = 30.0
"""PostgreSQL: how often the idle `LISTEN` connection is checked, so that a lost one is replaced."""


def chatbot_topic(chatbot_uuid: str) -> str:
    return f"chatbot:{chatbot_uuid}"


def session_topic(session_uuid: str) -> str:
    return f"session:{session_uuid}"


async def announce(db: AsyncSession, event: ChatbotEvent) -> None:
    """In the transaction that writes `event`: tell every process's watcher once it commits (PostgreSQL only;
    SQLite's watchers find it by reading)."""
    if db.get_bind().dialect.name == "postgresql":
        await ChatbotEventRepository(db).notify(CHANNEL, f"{event.chatbot_uuid} {event.session_uuid}")


class EventWatch:
    """One per serving process; started by the first subscription, stopped by `close`."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self._bells: defaultdict[str, set[asyncio.Event]] = defaultdict(set)
        self._task: asyncio.Task[None] | None = None

    @contextlib.contextmanager
    def subscribe(self, topic: str) -> Iterator[asyncio.Event]:
        """A bell rung whenever an event of `topic` may have been committed; the caller clears it before it reads."""
        bell = asyncio.Event()
        self._bells[topic].add(bell)
        if self._task is None:
            self._task = asyncio.create_task(self._watch(), name="event-watch")
        try:
            yield bell
        finally:
            self._bells[topic].discard(bell)
            if not self._bells[topic]:
                del self._bells[topic]

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _ring(self, topics: Iterator[str]) -> None:
        for topic in topics:
            for bell in self._bells.get(topic, ()):
                bell.set()

    def _ring_all(self) -> None:
        self._ring(iter(list(self._bells)))

    async def _watch(self) -> None:
        while True:
            try:
                if self.database.engine.dialect.name == "postgresql":
                    await self._listen()
                else:
                    await self._poll()
            except asyncio.CancelledError:
                raise
            except Exception:  # a lost connection, a locked database: streams keep their state, the watch restarts
                log.warning("event watch failed; restarting", exc_info=True)
                await asyncio.sleep(1.0)

    async def _listen(self) -> None:
        async with self.database.engine.connect() as connection:
            raw = (await connection.get_raw_connection()).driver_connection
            assert raw is not None

            def heard(_connection: Any, _pid: int, _channel: str, payload: str) -> None:
                chatbot_uuid, _, session_uuid = payload.partition(" ")
                self._ring(iter((chatbot_topic(chatbot_uuid), session_topic(session_uuid))))

            await raw.add_listener(CHANNEL, heard)
            try:
                self._ring_all()  # anything committed before the LISTEN began is read now
                while True:
                    await asyncio.sleep(LISTEN_CHECK_SECONDS)
                    await connection.exec_driver_sql("SELECT 1")
            finally:
                with contextlib.suppress(Exception):
                    await raw.remove_listener(CHANNEL, heard)

    async def _poll(self) -> None:
        async with self.database.transaction(write=False) as db:
            last = await ChatbotEventRepository(db).last_id()
        self._ring_all()
        while True:
            await asyncio.sleep(POLL_SECONDS)
            if not self._bells:
                continue  # nobody listens: no query
            async with self.database.transaction(write=False) as db:
                found = await ChatbotEventRepository(db).whose_after(last)
            for event_id, chatbot_uuid, session_uuid in found:
                last = event_id
                self._ring(iter((chatbot_topic(chatbot_uuid), session_topic(session_uuid))))
