"""Running the job queue in a test: one helper drains it, with the app's own handlers or given ones."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.embedding import Embedder
from botyard.ingestion.pipeline import SourceProcessor
from botyard.jobs.runner import JobRunner, RunnerConfig
from botyard.models import Job
from botyard.runtime import Runtime, ingestion_config, job_handlers

FAST = RunnerConfig(lease_seconds=10, poll_seconds=0.02, backoff_base_seconds=0.01, backoff_max_seconds=0.02)


APP_EMBEDDER: Any = object()
"""`process`'s default: the app's own embedder (the real bundled model)."""


def process(
    client: TestClient, embedder: Embedder | None = APP_EMBEDDER, show_stage_after: float | None = None
) -> None:
    """Run every queued job to its end with the app's own egress client and, unless told otherwise, its embedder."""
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    chosen = runtime.embedder if embedder is APP_EMBEDDER else embedder
    handlers = job_handlers(runtime.settings, runtime.egress, chosen, runtime.router.judge, runtime.answerer)
    if show_stage_after is not None:
        config = replace(ingestion_config(runtime.settings), show_stage_after=show_stage_after)
        handlers = [SourceProcessor(runtime.egress, config, chosen)]
    runner = JobRunner(runtime.database, handlers, FAST)

    async def drain() -> None:
        for _ in range(200):
            while await runner.run_once():
                pass
            async with runtime.database.transaction(write=False) as session:
                waiting = await session.scalar(select(func.count()).select_from(Job).where(Job.status == "queued"))
            if not waiting:
                return
            await asyncio.sleep(0.02)

    assert client.portal is not None
    client.portal.call(drain)
