"""Test sets' rules: making them (JSON or CSV), their cases, starting runs, and a run's results with what changed
since the set's previous finished run. Another account's set or run answers 404, like a missing one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso, utcnow
from botyard.jobs.kinds import JobKind, RunTests, WatchTestSets
from botyard.jobs.service import drop_queued_of_chatbot, enqueue
from botyard.models import TestCase, TestResult, TestRun, TestRunStatus, TestSet
from botyard.testsets import csvfile
from botyard.testsets.repository import TestRunRepository, TestSetRepository
from botyard.testsets.schemas import (
    CaseIn,
    CaseOut,
    Change,
    ResultOut,
    TestRunOut,
    TestSetCreate,
    TestSetDetail,
    TestSetOut,
    TestSetUpdate,
)

RUNS_LISTED = 50


def _case_out(case: TestCase) -> CaseOut:
    return {
        "uuid": case.uuid,
        "question": case.question,
        "expect_any": list(case.expect_any),
        "expect_refuse": case.expect_refuse,
    }


def _set_out(found: TestSet, count: int) -> TestSetOut:
    return {
        "uuid": found.uuid,
        "chatbot_uuid": found.chatbot_uuid,
        "name": found.name,
        "run_after_changes": found.run_after_changes,
        "case_count": count,
        "created_at": iso(found.created_at),
        "modified_at": iso(found.modified_at),
    }


async def _detail(db: AsyncSession, found: TestSet) -> TestSetDetail:
    cases = await TestSetRepository(db).cases(found.uuid)
    return {**_set_out(found, len(cases)), "cases": [_case_out(case) for case in cases]}


def _rows(cases: Sequence[CaseIn | csvfile.Case]) -> list[TestCase]:
    return [
        TestCase(question=case.question, expect_any=list(case.expect_any), expect_refuse=case.expect_refuse)
        for case in cases
    ]


async def create(db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: TestSetCreate) -> TestSetDetail:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    found = await TestSetRepository(db).add(
        TestSet(chatbot_uuid=chatbot.uuid, name=body.name, run_after_changes=body.run_after_changes)
    )
    await TestSetRepository(db).add_cases(found.uuid, _rows(body.cases))
    if found.run_after_changes:
        await schedule_watch(db, found.chatbot_uuid)
    return await _detail(db, found)


async def import_csv(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, name: str, data: bytes, run_after_changes: bool
) -> TestSetDetail:
    """A new set from a CSV file (`csvfile`): all of its rows, or nothing and the bad rows named."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    cases = csvfile.parse(data)
    repository = TestSetRepository(db)
    found = await repository.add(TestSet(chatbot_uuid=chatbot.uuid, name=name, run_after_changes=run_after_changes))
    await repository.add_cases(found.uuid, _rows(cases))
    if found.run_after_changes:
        await schedule_watch(db, found.chatbot_uuid)
    return await _detail(db, found)


async def list_sets(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> list[TestSetOut]:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    repository = TestSetRepository(db)
    sets = await repository.of_chatbot(chatbot.uuid)
    counts = await repository.case_counts([found.uuid for found in sets])
    return [_set_out(found, counts.get(found.uuid, 0)) for found in sets]


async def get(db: AsyncSession, account_uuid: str, set_uuid: str) -> TestSetDetail:
    return await _detail(db, await TestSetRepository(db).get_owned(account_uuid, set_uuid))


async def export(db: AsyncSession, account_uuid: str, set_uuid: str) -> tuple[str, str]:
    """The set's name and its cases as CSV."""
    found = await TestSetRepository(db).get_owned(account_uuid, set_uuid)
    cases = await TestSetRepository(db).cases(found.uuid)
    rows = [csvfile.Case(case.question, tuple(case.expect_any), case.expect_refuse) for case in cases]
    return found.name, csvfile.export(rows)


async def add_case(db: AsyncSession, account_uuid: str, set_uuid: str, body: CaseIn) -> CaseOut:
    """One more case ("save as test" from a conversation)."""
    found = await TestSetRepository(db).get_owned(account_uuid, set_uuid)
    [row] = _rows([body])
    await TestSetRepository(db).add_cases(found.uuid, [row])
    return _case_out(row)


async def update(db: AsyncSession, account_uuid: str, set_uuid: str, body: TestSetUpdate) -> TestSetDetail:
    repository = TestSetRepository(db)
    found = await repository.get_owned(account_uuid, set_uuid)
    await repository.update(found, body.model_dump(exclude_none=True))
    if body.run_after_changes:
        await schedule_watch(db, found.chatbot_uuid)
    return await _detail(db, found)


async def delete(db: AsyncSession, account_uuid: str, set_uuid: str) -> None:
    repository = TestSetRepository(db)
    await repository.delete(await repository.get_owned(account_uuid, set_uuid))


async def schedule_watch(db: AsyncSession, chatbot_uuid: str, at: datetime | None = None) -> None:
    """Replace the chatbot's waiting look for knowledge changes (`watch`) with one at `at` (now when not given)."""
    await drop_queued_of_chatbot(db, JobKind.WATCH_TEST_SETS, chatbot_uuid)
    await enqueue(db, WatchTestSets(chatbot_uuid), chatbot_uuid=chatbot_uuid, run_after=at or utcnow())
    await db.flush()


async def queue_run(
    db: AsyncSession, found: TestSet, trigger: str, now: datetime, knowledge_version: int | None = None
) -> TestRun:
    """A queued run of the set and its job (`knowledge_version`: the version that made a change-triggered run)."""
    run = await TestRunRepository(db).add(
        TestRun(
            test_set_uuid=found.uuid,
            chatbot_uuid=found.chatbot_uuid,
            trigger=trigger,
            created_at=now,
            knowledge_version=knowledge_version,
        )
    )
    await enqueue(db, RunTests(run.uuid), chatbot_uuid=found.chatbot_uuid, max_attempts=2)
    return run


async def start_run(db: AsyncSession, account_uuid: str, set_uuid: str, now: datetime) -> TestRunOut:
    found = await TestSetRepository(db).get_owned(account_uuid, set_uuid)
    return await run_out(db, await queue_run(db, found, "api", now))


async def list_runs(db: AsyncSession, account_uuid: str, set_uuid: str) -> list[TestRunOut]:
    """The set's runs, newest first (without their results: `get_run` has them)."""
    found = await TestSetRepository(db).get_owned(account_uuid, set_uuid)
    runs = await TestRunRepository(db).of_set(found.uuid, RUNS_LISTED)
    return [{**(await run_out(db, run)), "results": []} for run in runs]


async def get_run(db: AsyncSession, account_uuid: str, run_uuid: str) -> TestRunOut:
    return await run_out(db, await TestRunRepository(db).get_owned(account_uuid, run_uuid))


def changes(results: Sequence[TestResult], before: Sequence[TestResult] | None) -> list[Change | None]:
    """Each result's change since `before` (the previous finished run's results; None: there is none)."""
    if before is None:
        return [None] * len(results)
    earlier = {result.test_case_uuid or result.question: result.passed for result in before}
    found: list[Change | None] = []
    for result in results:
        then = earlier.get(result.test_case_uuid or result.question)
        found.append(
            "new" if then is None else None if then == result.passed else "fixed" if result.passed else "broken"
        )
    return found


async def run_out(db: AsyncSession, run: TestRun) -> TestRunOut:
    repository = TestRunRepository(db)
    results = await repository.results(run.uuid)
    previous = await repository.previous(run)
    before = await repository.results(previous.uuid) if previous is not None else None
    cases = {case.uuid: case for case in await TestSetRepository(db).cases(run.test_set_uuid)}
    changed = changes(results, before)
    shown: list[ResultOut] = []
    for result, change in zip(results, changed, strict=True):
        case = cases.get(result.test_case_uuid or "")
        shown.append(
            {
                "question": result.question,
                "passed": result.passed,
                "reply": result.reply,
                "confidence": result.confidence,
                "expect_any": list(case.expect_any) if case else [],
                "expect_refuse": case.expect_refuse if case else False,
                "change": change,
            }
        )
    return {
        "uuid": run.uuid,
        "test_set_uuid": run.test_set_uuid,
        "status": TestRunStatus(run.status),
        "trigger": run.trigger,
        "total": run.total if run.status in (TestRunStatus.DONE, TestRunStatus.FAILED) else len(cases),
        "passed": run.passed,
        "fixed": changed.count("fixed"),
        "broken": changed.count("broken"),
        "created_at": iso(run.created_at),
        "finished_at": iso(run.finished_at) if run.finished_at else None,
        "results": shown,
    }
