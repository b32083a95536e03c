"""The `run_tests` job: ask every question of a run's set (`answering.rehearsal`), one at a time, judge each
(`judging`), store the results in batches, then finish the run and send `test_run_finished` to the webhooks."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.answering.pipeline import Pipeline
from botyard.answering.rehearsal import rehearse
from botyard.chatbots import service as chatbots
from botyard.db.base import utcnow
from botyard.errors import AppError
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import RunTests
from botyard.models import TestCase, TestResult, TestRun, TestRunStatus, WebhookEvent
from botyard.outbox import events as webhooks
from botyard.testsets.judging import passes
from botyard.testsets.repository import TestRunRepository, TestSetRepository
from botyard.testsets.service import changes

BATCH = 25
"""Results written per transaction: a crash loses at most this many answers, and the writes stay short."""


@dataclass(frozen=True)
class _Loaded:
    run: TestRun
    cases: Sequence[TestCase]
    version: int


async def _load(db: AsyncSession, run_uuid: str) -> _Loaded | None:
    run = await TestRunRepository(db).get(run_uuid)
    chatbot = await chatbots.by_uuid(db, run.chatbot_uuid) if run is not None else None
    if run is None or chatbot is None:
        return None  # deleted with its set or chatbot meanwhile
    return _Loaded(run, await TestSetRepository(db).cases(run.test_set_uuid), chatbot.knowledge_version)


class TestRunner:
    """The job handler for `run_tests`."""

    __test__ = False
    payload_type = RunTests
    timeout_seconds = 3600.0
    retries_timeouts = False

    def __init__(self, answers: Pipeline) -> None:
        self.answers = answers

    async def run(self, ctx: JobContext[RunTests]) -> None:
        run_uuid = ctx.payload.test_run_uuid
        loaded = await ctx.read(lambda db: _load(db, run_uuid))
        if loaded is None:
            await ctx.finish(_nothing)
            return
        repository = TestRunRepository
        await ctx.write(lambda db: repository(db).set_status(run_uuid, TestRunStatus.RUNNING, loaded.version))
        await ctx.write(lambda db: repository(db).clear_results(run_uuid))
        batch: list[TestResult] = []
        passed = 0
        for position, case in enumerate(loaded.cases):
            try:
                asked = await rehearse(self.answers, loaded.run.chatbot_uuid, case.question)
            except AppError:  # the chatbot was deleted meanwhile: so is the run
                await ctx.finish(_nothing)
                return
            verdict = passes(asked.reply, asked.confidence, asked.refused, list(case.expect_any), case.expect_refuse)
            passed += verdict
            batch.append(
                TestResult(
                    test_run_uuid=run_uuid, test_case_uuid=case.uuid, position=position, question=case.question,
                    passed=verdict, reply=asked.reply, confidence=asked.confidence,
                )
            )  # fmt: skip
            if len(batch) >= BATCH:
                await ctx.write(functools.partial(_add, results=batch))
                batch = []
        await ctx.finish(lambda db: _finish(db, loaded.run, batch, len(loaded.cases), passed))

    async def give_up(self, session: AsyncSession, payload: RunTests, reason: str) -> None:
        run = await TestRunRepository(session).get(payload.test_run_uuid)
        if run is not None:
            results = await TestRunRepository(session).results(run.uuid)
            await _finish(
                session, run, [], len(results), sum(result.passed for result in results), status=TestRunStatus.FAILED
            )


async def _add(db: AsyncSession, results: list[TestResult]) -> None:
    await TestRunRepository(db).add_results(results)


async def _nothing(db: AsyncSession) -> None:
    del db


async def _finish(
    db: AsyncSession,
    run: TestRun,
    last: list[TestResult],
    total: int,
    passed: int,
    status: TestRunStatus = TestRunStatus.DONE,
) -> None:
    """Store the last results, close the run and tell the webhooks, with what changed since the previous run."""
    repository = TestRunRepository(db)
    await repository.add_results(last)
    now = utcnow()
    await repository.finish(run.uuid, status, total, passed, now)
    previous = await repository.previous(run)
    before = await repository.results(previous.uuid) if previous is not None else None
    changed = changes(await repository.results(run.uuid), before)
    data = {
        "test_set_uuid": run.test_set_uuid,
        "test_run_uuid": run.uuid,
        "status": status,
        "total": total,
        "passed": passed,
        "fixed": changed.count("fixed"),
        "broken": changed.count("broken"),
    }
    await webhooks.emit(db, run.chatbot_uuid, WebhookEvent.TEST_RUN_FINISHED, data, now)
