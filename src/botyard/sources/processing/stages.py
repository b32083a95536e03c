"""Showing a source's processing stage in its `status`, only when someone could see it.

A web page goes through every stage in a few tens of milliseconds; writing `downloading`, `extracting` and
`chunking` for it cost three fenced write transactions a page, more than the stages themselves, and on SQLite each
one queues for the single write lock. So a stage's status is written only once the stage has lasted `SHOW_AFTER`:
a slow download, a large PDF or the embedding of a long file shows where it is, a quick page goes from `queued` to
`success` in the one transaction that stores its chunks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.jobs.handler import JobContext, LeaseLost
from botyard.jobs.kinds import JobPayload
from botyard.models import SourceStatus
from botyard.sources.repository import DataSourceRepository

log = logging.getLogger(__name__)

SHOW_AFTER = 0.2
"""Seconds a stage must last before its status is written (a client polling every second misses shorter ones)."""


class StageReporter:
    """`enter(status)` at the start of each stage; `settle()` before the final write, so that no stage status can
    land after it, and `cancel()` when the job stops otherwise. At most one status write is in flight, and one that
    has started is waited for by `settle`, not cancelled halfway through its transaction."""

    def __init__(self, ctx: JobContext[JobPayload], source_uuid: str, show_after: float = SHOW_AFTER) -> None:
        self._ctx = ctx
        self._source_uuid = source_uuid
        self._show_after = show_after
        self._pending: asyncio.Task[None] | None = None
        self._writing = False

    async def enter(self, status: SourceStatus) -> None:
        await self.settle()
        self._pending = asyncio.create_task(self._show_later(status), name=f"status-{self._source_uuid}")

    async def settle(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None or pending.done():
            return
        if not self._writing:
            pending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pending

    def cancel(self) -> None:
        """For a stage that ends in an error or a cancellation: drop the pending status, whatever its state."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    async def _show_later(self, status: SourceStatus) -> None:
        await asyncio.sleep(self._show_after)
        self._writing = True
        try:
            await self._ctx.write(lambda db: _set_status(db, self._source_uuid, status))
        except LeaseLost:
            pass  # the stage's own writes will notice and stop the job
        except Exception:  # a status is informative only: the stage goes on, its final write will tell
            log.warning("could not show status %s of source %s", status, self._source_uuid, exc_info=True)
        finally:
            self._writing = False


async def _set_status(db: AsyncSession, source_uuid: str, status: SourceStatus) -> None:
    source = await DataSourceRepository(db).get(source_uuid)
    if source is not None:
        source.status = status
