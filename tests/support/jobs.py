"""Running the job queue in a test: one helper drains it, with the app's own handlers or given ones."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from starlette.testclient import TestClient

from botyard.embedding import Embedder
from botyard.jobs.handler import AnyHandler
from botyard.jobs.runner import JobRunner, RunnerConfig
from botyard.models import Job, JobStatus
from botyard.runtime import Runtime, ingestion_config, job_handlers
from botyard.sources.processing.pipeline import SourceProcessor

PAUSE = 0.02
"""Seconds between two looks for jobs that became due (a short backoff)."""
FAST = RunnerConfig(lease_seconds=10, poll_seconds=0.02, backoff_base_seconds=0.01, backoff_max_seconds=0.02)


APP_EMBEDDER: Any = object()
"""`process`'s default: the app's own embedder (the real bundled model)."""


def process(
    client: TestClient, embedder: Embedder | None = APP_EMBEDDER, show_stage_after: float | None = None
) -> None:
    """Run every queued job to its end with the app's own egress client and, unless told otherwise, its embedder."""
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    chosen = runtime.embedder if embedder is APP_EMBEDDER else embedder
    handlers = job_handlers(
        runtime.settings,
        runtime.egress,
        chosen,
        runtime.answers.router.judge,
        runtime.answers.parts.answerer,
        answers=runtime.answers,
    )
    if show_stage_after is not None:
        config = replace(ingestion_config(runtime.settings), show_stage_after=show_stage_after)
        handlers = [SourceProcessor(runtime.egress, config, chosen)]
    run_jobs(client, handlers)


def run_jobs(client: TestClient, handlers: Sequence[AnyHandler], config: RunnerConfig = FAST) -> None:
    """Run every queued job of these handlers' kinds to its end, on the app's database and event loop."""
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    runner = JobRunner(runtime.database, handlers, config)
    assert client.portal is not None
    client.portal.call(drain, runner)


async def drain(runner: JobRunner, rounds: int = 500) -> None:
    """Run due jobs until none of the runner's kinds is queued any more, waiting out short backoffs (at most `rounds`
    times). A job due only after those rounds (the next link of a chain: a purge in an hour, a watch in a minute) is
    not waited for: it could not run in time anyway."""
    horizon = runner.config.clock() + timedelta(seconds=rounds * PAUSE)
    for _ in range(rounds):
        while await runner.run_once():
            pass
        async with runner.database.transaction(write=False) as session:
            statement = select(Job.uuid).where(
                Job.status == JobStatus.QUEUED, Job.kind.in_(list(runner.handlers)), Job.run_after <= horizon
            )
            if (await session.scalars(statement.limit(1))).first() is None:
                return
        await asyncio.sleep(PAUSE)
