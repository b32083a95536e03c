"""Queue operations. Each runs inside the caller's transaction; the fenced ones check the lease first."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.engine import CursorResult

from botyard.db.batches import batches
from botyard.db.repository import Repository
from botyard.models import Job, JobStatus

UNFINISHED = (JobStatus.QUEUED, JobStatus.RUNNING)


class JobRepository(Repository[Job]):
    model = Job

    async def any_due(self, kinds: list[str], now: datetime) -> bool:
        """Whether a job of `kinds` is due at `now` (read only: a claim's write transaction is taken only then)."""
        statement = (
            select(Job.uuid).where(Job.status == JobStatus.QUEUED, Job.run_after <= now, Job.kind.in_(kinds)).limit(1)
        )
        return (await self.session.execute(statement)).first() is not None

    async def claim(self, owner: str, lease: timedelta, kinds: list[str], now: datetime) -> Job | None:
        """Take the oldest job due at `now` under the lease `owner` (one per claim). On PostgreSQL concurrent workers
        skip each other's rows (SKIP LOCKED); on SQLite the write transaction already holds the database lock."""
        statement = (
            select(Job)
            .where(Job.status == JobStatus.QUEUED, Job.run_after <= now, Job.kind.in_(kinds))
            .order_by(Job.run_after, Job.created_at)
            .limit(1)
            .with_for_update(skip_locked=True)
        )
        job = await self.one_or_none(statement)
        if job is None:
            return None
        job.status = JobStatus.RUNNING
        job.lease_owner = owner
        job.lease_until = now + lease
        job.attempts += 1
        await self.session.flush()
        return job

    async def holds_lease(self, job_uuid: str, owner: str) -> bool:
        statement = (
            select(Job.uuid)
            .where(Job.uuid == job_uuid, Job.lease_owner == owner, Job.status == JobStatus.RUNNING)
            .with_for_update()
        )
        return (await self.session.execute(statement)).first() is not None

    async def renew(self, job_uuid: str, owner: str, lease: timedelta, now: datetime) -> bool:
        result = await self.session.execute(
            update(Job)
            .where(Job.uuid == job_uuid, Job.lease_owner == owner, Job.status == JobStatus.RUNNING)
            .values(lease_until=now + lease)
        )
        return _changed(result)

    async def finish(self, job_uuid: str, owner: str) -> bool:
        result = await self.session.execute(
            update(Job)
            .where(Job.uuid == job_uuid, Job.lease_owner == owner, Job.status == JobStatus.RUNNING)
            .values(status=JobStatus.DONE, lease_owner=None, lease_until=None, last_error=None)
        )
        return _changed(result)

    async def retry_later(self, job_uuid: str, owner: str, error: str, run_after: datetime) -> bool:
        result = await self.session.execute(
            update(Job)
            .where(Job.uuid == job_uuid, Job.lease_owner == owner, Job.status == JobStatus.RUNNING)
            .values(status=JobStatus.QUEUED, lease_owner=None, lease_until=None, last_error=error, run_after=run_after)
        )
        return _changed(result)

    async def fail(self, job_uuid: str, owner: str, error: str) -> bool:
        result = await self.session.execute(
            update(Job)
            .where(Job.uuid == job_uuid, Job.lease_owner == owner, Job.status == JobStatus.RUNNING)
            .values(status=JobStatus.FAILED, lease_owner=None, lease_until=None, last_error=error)
        )
        return _changed(result)

    async def drop_queued(self, kind: str, data_source_uuid: str) -> None:
        """Forget the source's jobs of this kind that have not started (a new one replaces them)."""
        await self.session.execute(
            delete(Job).where(
                Job.kind == kind, Job.data_source_uuid == data_source_uuid, Job.status == JobStatus.QUEUED
            )
        )

    async def drop_queued_of_chatbot(self, kind: str, chatbot_uuid: str) -> None:
        await self.session.execute(
            delete(Job).where(Job.kind == kind, Job.chatbot_uuid == chatbot_uuid, Job.status == JobStatus.QUEUED)
        )

    async def pending_by_message(self, message_uuids: Sequence[str]) -> dict[str, int]:
        """How many jobs not yet done (queued or running) each message has: jobs whose payload names it as
        `message_uuid` (the work that follows an answer). Messages with none are left out."""
        named = Job.payload["message_uuid"].as_string()
        pending: dict[str, int] = {}
        for batch in batches(list(message_uuids)):
            rows = await self.session.execute(
                select(named, func.count()).where(Job.status.in_(UNFINISHED), named.in_(batch)).group_by(named)
            )
            pending |= {str(uuid): int(count) for uuid, count in rows}
        return pending

    async def counts(self) -> list[tuple[str, str, int]]:
        """How many jobs of each kind are in each status: (kind, status, count)."""
        rows = await self.session.execute(select(Job.kind, Job.status, func.count()).group_by(Job.kind, Job.status))
        return [(str(kind), str(status), int(count)) for kind, status, count in rows]

    async def due(self, now: datetime) -> tuple[int, datetime | None]:
        """The queued jobs due at `now` (what waits for a runner), and when the longest-waiting one became due."""
        statement = select(func.count(), func.min(Job.run_after)).where(
            Job.status == JobStatus.QUEUED, Job.run_after <= now
        )
        count, oldest = (await self.session.execute(statement)).one()
        return int(count), oldest

    async def recover_expired(self, now: datetime) -> int:
        """Put back in the queue every job whose runner stopped renewing its lease (crash, kill -9, lost host, or an
        event loop stalled past the lease: that run is fenced out by the next claim's new `lease_owner`)."""
        result = await self.session.execute(
            update(Job)
            .where(Job.status == JobStatus.RUNNING, Job.lease_until < now)
            .values(status=JobStatus.QUEUED, lease_owner=None, lease_until=None, last_error="lease expired")
        )
        return result.rowcount if isinstance(result, CursorResult) else 0

    async def prune_finished(self, done_before: datetime, failed_before: datetime) -> int:
        """Delete the jobs that finished long ago: done ones due before `done_before`, failed ones before
        `failed_before` (queued and running jobs are never touched). A job is due before it runs, and no job runs
        for days, so its due time stands for its age, on the index the queue already reads."""
        result = await self.session.execute(
            delete(Job).where(
                ((Job.status == JobStatus.DONE) & (Job.run_after < done_before))
                | ((Job.status == JobStatus.FAILED) & (Job.run_after < failed_before))
            )
        )
        return result.rowcount if isinstance(result, CursorResult) else 0


def _changed(result: object) -> bool:
    return isinstance(result, CursorResult) and result.rowcount == 1
