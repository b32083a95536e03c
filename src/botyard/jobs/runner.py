"""The job runner: claims due jobs with a lease, renews it while the handler works, fences every write with it,
retries with exponential backoff, gives up after `max_attempts`, and puts expired leases back in the queue.

A lease belongs to one claim, not to the runner: `lease_owner` is the runner's id plus a token of the claim. A runner
whose lease expired under it (its event loop stalled past the lease) can claim the same job again at once; the
earlier run, still going, must then fail its next fenced write and stop instead of running on beside the new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from botyard.db.base import utcnow
from botyard.db.session import Database, uninterrupted
from botyard.jobs.handler import AnyHandler, JobContext, LeaseLost, PermanentError, RetryLater
from botyard.jobs.kinds import JobPayload, PayloadError
from botyard.jobs.reasons import described, next_step
from botyard.jobs.repository import JobRepository
from botyard.models import Job

log = logging.getLogger(__name__)
T = TypeVar("T")


KEEP_DONE = timedelta(days=7)
"""How long a done job's row is kept (metrics count them; nothing else reads them). Without a bound the queue grows
by a row per answer (background tagging) and per source processed, for as long as the service runs."""
KEEP_FAILED = timedelta(days=30)
"""Failed jobs are kept longer: their `last_error` is what an operator looks for after something went wrong."""


@dataclass(frozen=True)
class RunnerConfig:
    lease_seconds: float = 30.0
    poll_seconds: float = 0.2
    concurrency: int = 2
    backoff_base_seconds: float = 2.0
    backoff_max_seconds: float = 300.0
    clock: Callable[[], datetime] = utcnow
    """Now, for leases and due times (tests move one by hand instead of sleeping past a lease)."""


def runner_id() -> str:
    return f"{socket.gethostname()[:30]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class JobRunner:
    def __init__(self, database: Database, handlers: Sequence[AnyHandler], config: RunnerConfig | None = None) -> None:
        self.database = database
        self.handlers = {handler.payload_type.kind: handler for handler in handlers}
        self.config = config or RunnerConfig()
        self.owner = runner_id()
        self._wake = asyncio.Event()
        self._stopping = False
        self._loop_task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()

    @property
    def lease(self) -> timedelta:
        return timedelta(seconds=self.config.lease_seconds)

    async def start(self) -> None:
        await self.recover()
        self._loop_task = asyncio.create_task(self._loop(), name="job-runner")

    async def stop(self) -> None:
        """Stop claiming and cancel running jobs; their leases expire and another runner picks them up. The loop is
        not cancelled but told to end at its next turn, and a job's cancellation waits for the unit of work it is in
        (`uninterrupted`): no transaction of the runner is cut off inside the database driver."""
        self._stopping = True
        self._wake.set()
        if self._loop_task is not None:
            await self._loop_task
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)

    def wake(self) -> None:
        """Look for work now instead of at the next poll (called after a request enqueued a job)."""
        self._wake.set()

    async def recover(self) -> int:
        """Put back in the queue the jobs whose lease expired, and forget those that finished long ago."""
        now = self.config.clock()

        async def unit() -> int:
            async with self.database.transaction() as session:
                repository = JobRepository(session)
                count = await repository.recover_expired(now)
                await repository.prune_finished(now - KEEP_DONE, now - KEEP_FAILED)
                return count

        count = await uninterrupted(unit())
        if count:
            log.warning("recovered %d jobs whose lease expired", count)
        return count

    async def run_once(self) -> bool:
        """Claim and run one due job to its end; False when there was none. (Tests and `worker --once`.)"""
        job = await self._claim()
        if job is None:
            return False
        await self._execute(job)
        return True

    async def _claim(self) -> Job | None:
        if not self.handlers:
            return None
        return await uninterrupted(self._claim_unit())

    async def _claim_unit(self) -> Job | None:
        # A look first, in a read transaction: on SQLite a write transaction takes the database's one write lock,
        # which every idle poll (5 a second per process) would otherwise take from the answers' writes.
        async with self.database.transaction(write=False) as session:
            if not await JobRepository(session).any_due(list(self.handlers), self.config.clock()):
                return None
        lease_owner = f"{self.owner}/{uuid.uuid4().hex[:8]}"  # at most 30+1+7+1+8+1+8 = 56 of the column's 64
        async with self.database.transaction() as session:
            return await JobRepository(session).claim(lease_owner, self.lease, list(self.handlers), self.config.clock())

    async def _loop(self) -> None:
        last_recovery = asyncio.get_running_loop().time()
        while not self._stopping:
            now = asyncio.get_running_loop().time()
            if now - last_recovery > self.config.lease_seconds / 2:
                await self._guarded(self.recover())
                last_recovery = now
            job = None
            if len(self._running) < self.config.concurrency:
                job = await self._guarded(self._claim())
            if job is not None:
                task = asyncio.create_task(self._execute(job), name=f"job-{job.kind}-{job.uuid}")
                self._running.add(task)
                task.add_done_callback(self._slot_freed)
                continue
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.config.poll_seconds)

    def _slot_freed(self, task: asyncio.Task[None]) -> None:
        # Claim the next job at once: waiting for the poll would leave a slot idle for up to `poll_seconds` after
        # every job (at four slots and 0.2 s, a ceiling of 20 short jobs a second).
        self._running.discard(task)
        self._wake.set()

    async def _guarded(self, work: Awaitable[T]) -> T | None:
        """A database hiccup must not kill the runner loop; log it and try again at the next turn."""
        try:
            return await work
        except Exception:
            log.exception("job runner step failed")
            await asyncio.sleep(self.config.poll_seconds)
            return None

    async def _execute(self, job: Job) -> None:
        handler = self.handlers[job.kind]
        lease_owner = str(job.lease_owner)
        try:
            payload = handler.payload_type.from_json(job.payload)
        except PayloadError as error:  # nothing to run it on, nor to record a failure on: the job alone fails
            log.warning("job %s failed: %s; gave up", described(job), error)
            await self._failed(job, handler, None, "payload", str(error), permanent=True)
            return
        ctx = JobContext(job.uuid, job.kind, payload, job.attempts, job.max_attempts, lease_owner, self.database)
        work = asyncio.create_task(asyncio.wait_for(handler.run(ctx), handler.timeout_seconds))
        heartbeat = asyncio.create_task(self._heartbeat(job.uuid, lease_owner, work))
        try:
            await work
        except LeaseLost:
            log.info("job %s lost its lease; another runner owns it now", job.uuid)
            return
        except asyncio.CancelledError:
            if heartbeat.done():  # the heartbeat cancelled the work: the lease is gone, nothing to record
                return
            raise
        except TimeoutError:
            detail = f"no result after {handler.timeout_seconds:.0f}s"
            permanent = not getattr(handler, "retries_timeouts", True)
            log.warning("job %s failed: timeout (%s); %s", described(job), detail, next_step(job, permanent))
            await self._failed(job, handler, payload, "timeout", detail, permanent)
            return
        except Exception as error:
            permanent = isinstance(error, PermanentError)
            reason, outcome = _reason(error), next_step(job, permanent)
            if permanent or isinstance(error, RetryLater):
                log.warning("job %s failed: %s; %s", described(job), reason, outcome)
            else:
                log.exception("job %s failed; %s", described(job), outcome)
            detail = f"{type(error).__name__}: {error}"[:500]
            await self._failed(job, handler, payload, reason, detail, permanent)
            return
        finally:
            heartbeat.cancel()  # a renewal under way ends first (`uninterrupted`)
            await asyncio.wait([heartbeat])
        if ctx.finished:
            return
        await uninterrupted(self._finish(job.uuid, lease_owner))

    async def _finish(self, job_uuid: str, lease_owner: str) -> None:
        async with self.database.transaction() as session:
            await JobRepository(session).finish(job_uuid, lease_owner)

    async def _renew(self, job_uuid: str, lease_owner: str) -> bool:
        async with self.database.transaction() as session:
            return await JobRepository(session).renew(job_uuid, lease_owner, self.lease, self.config.clock())

    async def _heartbeat(self, job_uuid: str, lease_owner: str, work: asyncio.Task[None]) -> None:
        while True:
            await asyncio.sleep(self.config.lease_seconds / 3)
            try:
                held = await uninterrupted(self._renew(job_uuid, lease_owner))
            except Exception:
                log.exception("could not renew the lease of job %s", job_uuid)
                continue
            if not held:
                work.cancel()
                return

    async def _failed(
        self, job: Job, handler: AnyHandler, payload: JobPayload | None, reason: str, detail: str, permanent: bool
    ) -> None:
        """Retry later with backoff, or give up: fail the job and let the handler record `reason` (on `payload`, when
        the row's could be read)."""
        await uninterrupted(self._record_failure(job, handler, payload, reason, detail, permanent))

    async def _record_failure(
        self, job: Job, handler: AnyHandler, payload: JobPayload | None, reason: str, detail: str, permanent: bool
    ) -> None:
        lease_owner = str(job.lease_owner)
        async with self.database.transaction() as session:
            jobs = JobRepository(session)
            if not permanent and job.attempts < job.max_attempts:
                delay = min(self.config.backoff_base_seconds * 2 ** (job.attempts - 1), self.config.backoff_max_seconds)
                delay *= random.uniform(0.8, 1.2)
                await jobs.retry_later(job.uuid, lease_owner, detail, self.config.clock() + timedelta(seconds=delay))
            elif await jobs.fail(job.uuid, lease_owner, detail) and payload is not None:
                await handler.give_up(session, payload, reason)


def _reason(error: Exception) -> str:
    """The short reason a handler records when its job gives up: the error's own `reason` if it has one."""
    reason = getattr(error, "reason", None)
    if isinstance(reason, str) and reason:
        return reason
    if isinstance(error, PermanentError):
        return str(error) or "failed"
    return f"{type(error).__name__}: {error}"[:500]
