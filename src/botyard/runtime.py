"""The long-lived parts of a process (database, egress client, job runner), built once by `botyard serve` (in the
app's lifespan) or by `botyard worker`, never at import time."""

from __future__ import annotations

from dataclasses import dataclass

from botyard.config import Settings
from botyard.db.session import Database
from botyard.egress import EgressClient, Resolver
from botyard.ingestion.chunk import ChunkingConfig
from botyard.ingestion.parse import ParseLimits
from botyard.ingestion.pipeline import IngestionConfig, SourceProcessor
from botyard.jobs.runner import JobHandler, JobRunner, RunnerConfig


def ingestion_config(settings: Settings) -> IngestionConfig:
    return IngestionConfig(
        chunking=ChunkingConfig(),
        parse_limits=ParseLimits(),
        max_fetch_bytes=settings.egress_max_response_bytes,
    )


def job_handlers(settings: Settings, egress: EgressClient) -> list[JobHandler]:
    """Every kind of job the service runs."""
    return [SourceProcessor(egress, ingestion_config(settings))]


@dataclass
class Runtime:
    settings: Settings
    database: Database
    egress: EgressClient
    runner: JobRunner

    @classmethod
    def build(cls, settings: Settings, resolver: Resolver | None = None) -> Runtime:
        database = Database.from_settings(settings)
        egress = EgressClient(settings, resolver)
        config = RunnerConfig(lease_seconds=settings.job_lease_seconds, concurrency=settings.job_concurrency)
        runner = JobRunner(database, job_handlers(settings, egress), config)
        return cls(settings, database, egress, runner)

    async def start_jobs(self) -> None:
        await self.runner.start()

    async def close(self) -> None:
        await self.runner.stop()
        await self.egress.aclose()
        await self.database.dispose()
