"""What a job handler is and gets: the `JobHandler` contract, its `JobContext` (the typed payload and fenced ways to
write), and the exceptions by which it tells the runner how it failed.

    LeaseLost          the runner no longer holds the job: stop, record nothing
    PermanentError     retrying cannot help: the job gives up at once (`give_up` records the reason)
    RetryLater         a passing failure the handler expected: retried with backoff
    any other error    a bug or the unexpected: retried, logged with its traceback
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeAlias, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.session import Database, uninterrupted
from botyard.jobs.kinds import JobPayload
from botyard.jobs.repository import JobRepository

T = TypeVar("T")
P = TypeVar("P", bound=JobPayload)
P_co = TypeVar("P_co", bound=JobPayload, covariant=True)


class LeaseLost(Exception):
    """This runner no longer holds the job: another runner took it over, or the job was deleted."""


class PermanentError(Exception):
    """A failure that retrying cannot fix; the job gives up at once. The message becomes the reason.

    An expected failure (of the job's input, not of the code): logged as one warning line, without a traceback."""


class RetryLater(Exception):
    """A passing failure the handler expected (the network, a sandbox that did not start); the job is retried.

    Logged as one warning line, without a traceback: a traceback is for exceptions nobody expected (bugs)."""


@dataclass
class JobContext(Generic[P_co]):
    """What a handler gets: the job's payload, read as its kind's class, and fenced ways to write its results.
    (`JobContext[JobPayload]` is what helpers that serve several kinds take.)"""

    job_uuid: str
    kind: str
    payload: P_co
    attempt: int
    max_attempts: int
    owner: str
    """The lease of this claim of the job (`lease_owner`); every fenced write checks it."""
    database: Database
    finished: bool = False
    """Set by `finish`: the job is already done, the runner has nothing left to record."""

    # Each unit of work runs to its end even when the job is cancelled (its time limit, a lost lease, the runner
    # stopping): see `uninterrupted`. The cancellation lands between units, never inside one.

    async def read(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """Run `work` in a read-only transaction (no lease check: reading changes nothing)."""

        async def unit() -> T:
            async with self.database.transaction(write=False) as session:
                return await work(session)

        return await uninterrupted(unit())

    async def write(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """Run `work` in a write transaction, only while this runner still holds the job's lease."""

        async def unit() -> T:
            async with self.database.transaction() as session:
                if not await JobRepository(session).holds_lease(self.job_uuid, self.owner):
                    raise LeaseLost(self.job_uuid)
                return await work(session)

        return await uninterrupted(unit())

    async def finish(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """Run `work` and mark the job done in one transaction, so its results and its completion commit together
        (and a crash in between cannot make it run again). Fenced like `write`: the completion is the check."""

        async def unit() -> T:
            async with self.database.transaction() as session:
                if not await JobRepository(session).finish(self.job_uuid, self.owner):
                    raise LeaseLost(self.job_uuid)
                return await work(session)

        result = await uninterrupted(unit())
        self.finished = True
        return result

    @property
    def last_attempt(self) -> bool:
        return self.attempt >= self.max_attempts


class JobHandler(Protocol[P]):
    """One kind of job: the kind of its `payload_type`. `run` must be idempotent: a job can run again after a crash.

    A handler whose work takes as long on every attempt (a document's ingestion) sets `retries_timeouts = False`:
    a run that used its whole `timeout_seconds` then fails at once instead of taking them again four times. Without
    the attribute a timeout is retried (a provider that hung may answer next time)."""

    payload_type: type[P]
    timeout_seconds: float

    async def run(self, ctx: JobContext[P]) -> None: ...

    async def give_up(self, session: AsyncSession, payload: P, reason: str) -> None:
        """Record the final failure (e.g. a source's `error:<reason>` status), in the transaction that fails the job."""
        ...


AnyHandler: TypeAlias = JobHandler[Any]
"""A handler of whichever kind, as the runner holds them (it reads each job's payload with the handler's class)."""
