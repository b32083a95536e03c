"""The job runner on the real databases: leases, fencing, retries, recovery, concurrent runners."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, TypeVar

import pytest
from sqlalchemy import event, select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.jobs.handler import JobContext, LeaseLost, PermanentError
from botyard.jobs.kinds import JobPayload
from botyard.jobs.runner import KEEP_DONE, KEEP_FAILED, JobRunner, RunnerConfig
from botyard.jobs.service import enqueue
from botyard.models import Account, Chatbot, DataSource, Job
from botyard.sources.processing.embed import SourceReembedder
from botyard.sources.processing.pipeline import SourceProcessor
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.jobs import drain
from tests.support.waiting import until

T = TypeVar("T")
FAST = RunnerConfig(lease_seconds=5, poll_seconds=0.02, backoff_base_seconds=0.01, backoff_max_seconds=0.05)


@dataclass(frozen=True)
class Numbered(JobPayload):
    """The payload of the tests' own kind of job."""

    kind: ClassVar[str] = "test"
    n: int = 0


@dataclass
class Recorder:
    """A handler that fails the first `failures` attempts of each job, then records the job as done."""

    payload_type: type[Numbered] = Numbered
    timeout_seconds: float = 5.0
    failures: int = 0
    error: type[Exception] = RuntimeError
    delay: float = 0.0
    runs: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    gave_up: list[tuple[Numbered, str]] = field(default_factory=list)

    async def run(self, ctx: JobContext[Numbered]) -> None:
        self.runs.append(ctx.job_uuid)
        if self.delay:
            await asyncio.sleep(self.delay)
        if ctx.attempt <= self.failures:
            raise self.error(f"attempt {ctx.attempt} failed")

        async def record(session: AsyncSession) -> None:
            self.done.append(ctx.job_uuid)

        await ctx.write(record)

    async def give_up(self, session: AsyncSession, payload: Numbered, reason: str) -> None:
        self.gave_up.append((payload, reason))


@pytest.fixture(autouse=True)
def _empty_tables(client: object) -> None:
    """Requesting the client empties every table before each test."""


def call(db: Db, work: Callable[[], Awaitable[T]]) -> T:
    assert db.client.portal is not None
    return db.client.portal.call(work)


def add_jobs(db: Db, count: int, **fields: Any) -> list[str]:
    async def go(session: AsyncSession) -> list[str]:
        return [(await enqueue(session, Numbered(n), **fields)).uuid for n in range(count)]

    return db.run(go)


def job_states(db: Db) -> dict[str, tuple[str, int, str | None]]:
    async def go(session: AsyncSession) -> dict[str, tuple[str, int, str | None]]:
        jobs = (await session.scalars(select(Job))).all()
        return {job.uuid: (job.status, job.attempts, job.last_error) for job in jobs}

    return db.run(go)


def test_a_job_runs_once_and_is_done(db: Db) -> None:
    handler = Recorder()
    [job] = add_jobs(db, 1)
    runner = JobRunner(db.database, [handler], FAST)
    call(db, lambda: drain(runner, rounds=2))
    assert handler.done == [job]
    assert job_states(db)[job] == ("done", 1, None)


def test_transient_failures_are_retried_with_backoff(db: Db) -> None:
    handler = Recorder(failures=2)
    [job] = add_jobs(db, 1)
    runner = JobRunner(db.database, [handler], FAST)
    call(db, runner.run_once)
    status, attempts, error = job_states(db)[job]
    assert (status, attempts) == ("queued", 1)
    assert error == "RuntimeError: attempt 1 failed"
    call(db, lambda: drain(runner))
    assert handler.runs == [job, job, job]
    assert job_states(db)[job] == ("done", 3, None)


def test_a_job_gives_up_after_max_attempts(db: Db) -> None:
    handler = Recorder(failures=99)
    [job] = add_jobs(db, 1, max_attempts=3)
    runner = JobRunner(db.database, [handler], FAST)
    call(db, lambda: drain(runner))
    assert len(handler.runs) == 3
    assert job_states(db)[job][:2] == ("failed", 3)
    assert handler.gave_up == [(Numbered(0), "RuntimeError: attempt 3 failed")]


def test_a_permanent_error_gives_up_at_once(db: Db) -> None:
    handler = Recorder(failures=1, error=PermanentError)
    [job] = add_jobs(db, 1)
    runner = JobRunner(db.database, [handler], FAST)
    call(db, lambda: drain(runner))
    assert handler.runs == [job]
    assert handler.gave_up == [(Numbered(0), "attempt 1 failed")]
    assert job_states(db)[job] == ("failed", 1, "PermanentError: attempt 1 failed")


def test_a_job_that_overruns_its_timeout_is_retried(db: Db) -> None:
    handler = Recorder(timeout_seconds=0.05, delay=0.5)
    [job] = add_jobs(db, 1, max_attempts=1)
    runner = JobRunner(db.database, [handler], FAST)
    call(db, runner.run_once)
    assert handler.done == []
    assert handler.gave_up == [(Numbered(0), "timeout")]
    assert job_states(db)[job] == ("failed", 1, "no result after 0s")


@dataclass
class SameEveryTime(Recorder):
    """A handler whose work takes as long on every attempt (a document's ingestion)."""

    retries_timeouts: bool = False


def test_a_handler_whose_timeout_would_repeat_is_not_retried(db: Db) -> None:
    handler = SameEveryTime(timeout_seconds=0.05, delay=0.5)
    [job] = add_jobs(db, 1, max_attempts=5)
    runner = JobRunner(db.database, [handler], FAST)
    call(db, runner.run_once)
    # It used to run its whole timeout five times over.
    assert handler.runs == [job] and handler.gave_up == [(Numbered(0), "timeout")]
    assert job_states(db)[job] == ("failed", 1, "no result after 0s")


def test_ingestion_does_not_retry_its_timeouts() -> None:
    assert SourceProcessor.retries_timeouts is False and SourceReembedder.retries_timeouts is False


def test_an_expired_lease_is_recovered_and_the_old_owner_is_fenced_out(db: Db) -> None:
    handler = Recorder()
    [job] = add_jobs(db, 1)
    clock = ManualClock()
    crashed = JobRunner(db.database, [handler], RunnerConfig(lease_seconds=5, clock=clock))
    claimed = call(db, crashed._claim)
    assert claimed is not None
    assert job_states(db)[job][0] == "running"
    recovering = JobRunner(db.database, [handler], replace(FAST, clock=clock))
    clock.advance(4.9)
    assert call(db, recovering.recover) == 0  # the lease still holds
    clock.advance(0.2)
    assert call(db, recovering.recover) == 1
    assert job_states(db)[job] == ("queued", 1, "lease expired")

    survivor = JobRunner(db.database, [handler], FAST)
    call(db, survivor.run_once)
    assert handler.done == [job]

    # The crashed runner comes back and tries to write: its lease is gone, so nothing it writes lands.
    stale = JobContext(job, "test", Numbered(), 1, 5, str(claimed.lease_owner), db.database)

    async def stale_write() -> None:
        async def write(session: AsyncSession) -> None:
            raise AssertionError("a fenced write ran without the lease")

        await stale.write(write)

    with pytest.raises(LeaseLost):
        call(db, stale_write)

    async def stale_finish() -> None:
        async def write(session: AsyncSession) -> None:
            raise AssertionError("a fenced completion ran without the lease")

        await stale.finish(write)

    with pytest.raises(LeaseLost):
        call(db, stale_finish)
    assert job_states(db)[job] == ("done", 2, None)


def test_a_runner_that_takes_back_its_own_expired_job_fences_out_its_earlier_run(db: Db) -> None:
    # A stalled event loop (a loaded machine) lets a lease expire while its run goes on; the same runner's recovery
    # puts the job back and its next claim takes it again. The earlier run must lose its lease then, or two runs of
    # one job go on side by side, both passing the fence (a crawl fetching every page twice).
    handler = Recorder()
    [job] = add_jobs(db, 1)
    clock = ManualClock()
    runner = JobRunner(db.database, [handler], RunnerConfig(lease_seconds=5, clock=clock))
    first = call(db, runner._claim)

    async def expire_and_claim_again() -> Job | None:
        clock.advance(6)
        assert await runner.recover() == 1
        return await runner._claim()

    second = call(db, expire_and_claim_again)
    assert first is not None and second is not None and second.uuid == job
    assert first.lease_owner != second.lease_owner
    assert str(first.lease_owner).startswith(runner.owner) and str(second.lease_owner).startswith(runner.owner)
    earlier = JobContext(job, "test", Numbered(), 1, 5, str(first.lease_owner), db.database)
    later = JobContext(job, "test", Numbered(), 2, 5, str(second.lease_owner), db.database)

    async def nothing(session: AsyncSession) -> None:
        return None

    with pytest.raises(LeaseLost):
        call(db, lambda: earlier.write(nothing))
    call(db, lambda: later.finish(nothing))
    assert job_states(db)[job] == ("done", 2, None)


@dataclass
class Finisher:
    """A handler that stores its result and completes its job in one transaction; the first `broken` attempts fail
    inside that transaction, after the completion was written."""

    payload_type: type[Numbered] = Numbered
    timeout_seconds: float = 5.0
    broken: int = 1
    stored: list[int] = field(default_factory=list)

    async def run(self, ctx: JobContext[Numbered]) -> None:
        async def store(session: AsyncSession) -> None:
            job = await session.get(Job, ctx.job_uuid)
            assert job is not None and job.status == "done"  # the completion is the fence, written first
            if ctx.attempt <= self.broken:
                raise RuntimeError("the store failed")
            self.stored.append(ctx.attempt)

        await ctx.finish(store)

    async def give_up(self, session: AsyncSession, payload: Numbered, reason: str) -> None:
        raise AssertionError("never gives up")


def test_a_job_completes_in_the_transaction_that_stores_its_result(db: Db) -> None:
    handler = Finisher()
    [job] = add_jobs(db, 1)
    runner = JobRunner(db.database, [handler], FAST)
    call(db, lambda: drain(runner))
    # The failed store rolled the completion back with it: the job ran again, and its second run completed it.
    assert handler.stored == [2]
    assert job_states(db)[job] == ("done", 2, None)


def test_concurrent_runners_never_run_a_job_twice(db: Db) -> None:
    handler = Recorder(delay=0.01)
    jobs = add_jobs(db, 30)

    async def run_many() -> None:
        runners = [JobRunner(db.database, [handler], FAST) for _ in range(4)]
        for runner in runners:
            await runner.start()

        async def all_done() -> bool:
            async with db.database.transaction(write=False) as session:
                return set((await session.scalars(select(Job.status))).all()) == {"done"}

        try:
            await until(all_done, what="every job done")
        finally:
            for runner in runners:
                await runner.stop()

    call(db, run_many)
    assert sorted(handler.runs) == sorted(jobs)
    assert sorted(handler.done) == sorted(jobs)
    assert {state[0] for state in job_states(db).values()} == {"done"}


@dataclass
class SlowWriter(Recorder):
    """A handler whose one write takes a while inside its transaction (a write of many rows)."""

    writing: asyncio.Event | None = None

    async def run(self, ctx: JobContext[Numbered]) -> None:
        self.runs.append(ctx.job_uuid)

        async def record(session: AsyncSession) -> None:
            session.add(Account(email=f"{ctx.job_uuid}@example.com"))
            await session.flush()  # the transaction holds its locks from here
            assert self.writing is not None
            self.writing.set()
            await asyncio.sleep(0.3)
            self.done.append(ctx.job_uuid)

        await ctx.write(record)
        await asyncio.sleep(30)  # the runner stops long before


def test_a_runner_stopping_lets_the_write_under_way_end_and_leaves_no_transaction_open(db: Db) -> None:
    # Cancelling a task inside a PostgreSQL driver call can leave its connection open in the transaction, holding
    # its locks, so the next writer of those rows waits forever (how a CI run once hung): the write ends first.
    handler = SlowWriter()
    [job] = add_jobs(db, 1)

    async def stop_while_writing() -> None:
        handler.writing = asyncio.Event()
        runner = JobRunner(db.database, [handler], FAST)
        await runner.start()
        await until(handler.writing.is_set, what="the write under way")
        await runner.stop()

    call(db, stop_while_writing)
    assert handler.done == [job]
    assert db.run(lambda session: session.scalar(select(Account.email))) == f"{job}@example.com"
    assert job_states(db)[job][0] == "running"  # cancelled after its write: recovered when its lease expires
    db.wipe()  # would wait forever on a lock left behind


def test_deleting_a_source_cancels_its_pending_jobs(db: Db) -> None:
    async def setup(session: AsyncSession) -> str:
        account = Account(email="jobs@example.com")
        session.add(account)
        await session.flush()
        bot = Chatbot(account_uuid=account.uuid, name="b")
        session.add(bot)
        await session.flush()
        source = DataSource(chatbot_uuid=bot.uuid, type="qa")
        session.add(source)
        await session.flush()
        await enqueue(session, Numbered(), data_source_uuid=source.uuid, chatbot_uuid=bot.uuid)
        return source.uuid

    source_uuid = db.run(setup)
    assert len(job_states(db)) == 1

    async def remove(session: AsyncSession) -> None:
        await session.delete(await session.get(DataSource, source_uuid))

    db.run(remove)
    assert job_states(db) == {}


def test_a_freed_slot_takes_the_next_job_without_waiting_for_the_poll(db: Db) -> None:
    handler = Recorder()
    jobs = add_jobs(db, 5)
    # One slot and a poll far longer than the test may take: only the wake-up on completion gets through the queue.
    runner = JobRunner(db.database, [handler], RunnerConfig(lease_seconds=30, poll_seconds=120, concurrency=1))

    async def run_until_done() -> None:
        await runner.start()
        try:
            await until(lambda: len(handler.done) == len(jobs), what="every job done")
        finally:
            await runner.stop()

    call(db, run_until_done)
    assert sorted(handler.done) == sorted(jobs)


def test_a_poll_with_nothing_due_takes_no_write_lock(db: Db) -> None:
    later = add_jobs(db, 1, run_after=datetime.now(UTC) + timedelta(hours=1))
    runner = JobRunner(db.database, [Recorder()], FAST)
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    engine = db.database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        assert call(db, runner.run_once) is False
    finally:
        event.remove(engine, "before_cursor_execute", record)
    # SQLite's write transaction begins IMMEDIATE, PostgreSQL's claim locks rows FOR UPDATE: neither happened.
    assert statements and not any("IMMEDIATE" in each or "FOR UPDATE" in each for each in statements)
    assert job_states(db)[later[0]] == ("queued", 0, None)


def test_jobs_that_finished_long_ago_are_forgotten_and_no_other(db: Db) -> None:
    now = datetime.now(UTC)
    clock = ManualClock(now)
    old, recent = now - KEEP_DONE - timedelta(hours=1), now - timedelta(hours=1)
    old_done, recent_done = add_jobs(db, 1, run_after=old), add_jobs(db, 1, run_after=recent)
    old_failed = add_jobs(db, 1, run_after=now - KEEP_FAILED - timedelta(hours=1))
    kept_failed = add_jobs(db, 1, run_after=old)  # failed, but not for long enough
    waiting = add_jobs(db, 1, run_after=now - KEEP_FAILED - timedelta(days=1))  # queued: never touched

    async def finish(session: AsyncSession) -> None:
        for uuid, status in [
            (old_done, "done"),
            (recent_done, "done"),
            (old_failed, "failed"),
            (kept_failed, "failed"),
        ]:
            job = await session.get(Job, uuid[0])
            assert job is not None
            job.status = status

    db.run(finish)
    runner = JobRunner(db.database, [Recorder()], replace(FAST, clock=clock))
    call(db, runner.recover)
    assert set(job_states(db)) == {recent_done[0], kept_failed[0], waiting[0]}
