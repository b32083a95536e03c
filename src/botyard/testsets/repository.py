"""The test sets' rows: sets, cases, runs and results. SQL lives here only."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, select, update

from botyard.db.repository import ChatbotPartRepository, Repository
from botyard.models import Chatbot, TestCase, TestResult, TestRun, TestRunStatus, TestSet


class TestSetRepository(ChatbotPartRepository[TestSet]):
    __test__ = False
    model = TestSet
    noun = "Test set"

    async def of_chatbot(self, chatbot_uuid: str) -> Sequence[TestSet]:
        return await self.all(self.select().where(TestSet.chatbot_uuid == chatbot_uuid).order_by(TestSet.created_at))

    async def case_counts(self, set_uuids: Sequence[str]) -> dict[str, int]:
        statement = (
            select(TestCase.test_set_uuid, func.count())
            .where(TestCase.test_set_uuid.in_(list(set_uuids)))
            .group_by(TestCase.test_set_uuid)
        )
        return {uuid: count for uuid, count in (await self.session.execute(statement)).all()}

    async def cases(self, set_uuid: str) -> Sequence[TestCase]:
        statement = select(TestCase).where(TestCase.test_set_uuid == set_uuid).order_by(TestCase.position)
        return (await self.session.execute(statement)).scalars().all()

    async def add_cases(self, set_uuid: str, cases: Sequence[TestCase]) -> None:
        count = await self.session.scalar(select(func.count()).where(TestCase.test_set_uuid == set_uuid))
        for position, case in enumerate(cases, start=int(count or 0)):
            case.test_set_uuid, case.position = set_uuid, position
            self.session.add(case)
        await self.session.flush()

    async def watched(self, chatbot_uuid: str) -> Sequence[tuple[TestSet, int]]:
        """The chatbot's sets run after knowledge changes, with its knowledge version."""
        statement = (
            select(TestSet, Chatbot.knowledge_version)
            .join(Chatbot, Chatbot.uuid == TestSet.chatbot_uuid)
            .where(TestSet.chatbot_uuid == chatbot_uuid, TestSet.run_after_changes.is_(True))
        )
        return [(row[0], int(row[1] or 0)) for row in await self.session.execute(statement)]


class TestRunRepository(Repository[TestRun]):
    __test__ = False
    model = TestRun
    noun = "Test run"

    def owned_statement(self, account_uuid: str, uuid: str):  # type: ignore[no-untyped-def]
        return (
            select(TestRun)
            .join(Chatbot, Chatbot.uuid == TestRun.chatbot_uuid)
            .where(TestRun.uuid == uuid, Chatbot.account_uuid == account_uuid)
        )

    async def of_set(self, set_uuid: str, limit: int) -> Sequence[TestRun]:
        statement = (
            self.select()
            .where(TestRun.test_set_uuid == set_uuid)
            .order_by(TestRun.created_at.desc(), TestRun.uuid.desc())
            .limit(limit)
        )
        return await self.all(statement)

    async def previous(self, run: TestRun) -> TestRun | None:
        """The set's last finished run before `run`."""
        statement = (
            self.select()
            .where(
                TestRun.test_set_uuid == run.test_set_uuid,
                TestRun.status == TestRunStatus.DONE,
                TestRun.created_at < run.created_at,
            )
            .order_by(TestRun.created_at.desc())
            .limit(1)
        )
        return await self.one_or_none(statement)

    async def latest_version(self, set_uuid: str) -> int | None:
        """The knowledge version of the set's newest run (any status)."""
        statement = (
            select(TestRun.knowledge_version)
            .where(TestRun.test_set_uuid == set_uuid)
            .order_by(TestRun.created_at.desc())
            .limit(1)
        )
        return await self.session.scalar(statement)

    async def results(self, run_uuid: str) -> Sequence[TestResult]:
        statement = select(TestResult).where(TestResult.test_run_uuid == run_uuid).order_by(TestResult.position)
        return (await self.session.execute(statement)).scalars().all()

    async def add_results(self, results: Sequence[TestResult]) -> None:
        self.session.add_all(results)
        await self.session.flush()

    async def finish(self, run_uuid: str, status: str, total: int, passed: int, at: datetime) -> None:
        statement = (
            update(TestRun)
            .where(TestRun.uuid == run_uuid)
            .values(status=status, total=total, passed=passed, finished_at=at)
        )
        await self.session.execute(statement)

    async def set_status(self, run_uuid: str, status: TestRunStatus, knowledge_version: int | None) -> None:
        values = {"status": status, "knowledge_version": knowledge_version}
        await self.session.execute(update(TestRun).where(TestRun.uuid == run_uuid).values(values))

    async def clear_results(self, run_uuid: str) -> None:
        """Forget a run's results (a run that starts again after a crash asks every question again)."""
        await self.session.execute(delete(TestResult).where(TestResult.test_run_uuid == run_uuid))
