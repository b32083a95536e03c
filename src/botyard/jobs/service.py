"""Enqueueing: a job row written in the caller's transaction, so it exists exactly when the work it is for does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.jobs.kinds import JobPayload
from botyard.jobs.repository import JobRepository
from botyard.models import Job


async def enqueue(
    db: AsyncSession,
    payload: JobPayload,
    *,
    chatbot_uuid: str | None = None,
    data_source_uuid: str | None = None,
    max_attempts: int = 5,
    run_after: datetime | None = None,
) -> Job:
    """Queue a job of the payload's kind, due at `run_after` (now when not given). The payload carries ids only; the
    handler reads the current state when it runs."""
    job = Job(
        kind=payload.kind,
        payload=payload.to_json(),
        chatbot_uuid=chatbot_uuid,
        data_source_uuid=data_source_uuid,
        max_attempts=max_attempts,
    )
    if run_after is not None:
        job.run_after = run_after
    return await JobRepository(db).add(job)


async def drop_queued(db: AsyncSession, kind: str, *, data_source_uuid: str) -> None:
    """Forget the source's queued (not yet running) jobs of `kind`: a newer one replaces them."""
    await JobRepository(db).drop_queued(kind, data_source_uuid)


async def drop_queued_of_chatbot(db: AsyncSession, kind: str, chatbot_uuid: str) -> None:
    """Forget the chatbot's queued (not yet running) jobs of `kind`: a newer one replaces them."""
    await JobRepository(db).drop_queued_of_chatbot(kind, chatbot_uuid)


async def pending_by_message(db: AsyncSession, message_uuids: Sequence[str]) -> dict[str, int]:
    """How many unfinished jobs each of these messages has (those with none are left out)."""
    return await JobRepository(db).pending_by_message(message_uuids)


@dataclass(frozen=True)
class QueueState:
    """The queue as a scrape sees it (`botyard.scrape`)."""

    counts: list[tuple[str, str, int]]
    """(kind, status, jobs) for every kind and status present."""
    due: int
    """Queued jobs whose time has come: the work waiting for a runner."""
    oldest_due: datetime | None
    """When the longest-waiting of those became due."""


async def queue_state(db: AsyncSession, now: datetime) -> QueueState:
    repository = JobRepository(db)
    due, oldest = await repository.due(now)
    return QueueState(await repository.counts(), due, oldest)
