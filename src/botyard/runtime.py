"""The long-lived parts of a process (database, egress client, embedder, answer pipeline, job runner), built once
by `botyard serve` (in the app's lifespan) or by `botyard worker`, never at import time. Handlers never see it
whole: the app hands each part to the dependencies that need it (`deps.py`, `answering/router.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from botyard.answering.background.tagging import SessionTagger
from botyard.answering.base import Answerer
from botyard.answering.judge import ModelJudge
from botyard.answering.pipeline import Pipeline
from botyard.answering.run import AnswerParts
from botyard.answering.select import build_answerer
from botyard.answering.supervisor import AgentRouter
from botyard.answering.tools import ToolCaller
from botyard.chat.history.retention import ConversationPurger
from botyard.config import Settings
from botyard.crawl.crawler import CrawlConfig, Crawler
from botyard.crawl.sync import ChatbotSync
from botyard.db.base import utcnow
from botyard.db.session import Database
from botyard.egress import EgressClient, Resolver
from botyard.embedding import Embedder, build_embedder, close_embedder
from botyard.ingestion.chunk import ChunkingConfig
from botyard.ingestion.parse import ParseLimits
from botyard.jobs.handler import AnyHandler
from botyard.jobs.runner import JobRunner, RunnerConfig
from botyard.live.notify import OperatorMailer
from botyard.llm.provider import Provider
from botyard.llm.registry import ModelRegistry
from botyard.mail import Mailer
from botyard.memory import keep_large_blocks_apart
from botyard.outbox.sender import WebhookSender
from botyard.retrieval.retriever import Retriever
from botyard.retrieval.warmer import IndexWarmer
from botyard.sources.processing.embed import SourceReembedder, enqueue_reembedding
from botyard.sources.processing.pipeline import IngestionConfig, SourceProcessor
from botyard.testsets.runner import TestRunner
from botyard.testsets.watch import TestSetWatcher


def ingestion_config(settings: Settings) -> IngestionConfig:
    return IngestionConfig(
        chunking=ChunkingConfig(),
        parse_limits=ParseLimits(max_chars=settings.ingest_max_chars),
        max_fetch_bytes=settings.egress_max_response_bytes,
        max_chunks=settings.ingest_max_chunks,
    )


def crawl_config(settings: Settings) -> CrawlConfig:
    return CrawlConfig(
        delay=settings.crawl_delay,
        max_seconds=settings.crawl_max_seconds,
        max_bytes=settings.crawl_max_mb * 1024 * 1024,
    )


def job_handlers(
    settings: Settings,
    egress: EgressClient,
    embedder: Embedder | None = None,
    judge: ModelJudge | None = None,
    answerer: Answerer | None = None,
    clock: Callable[[], datetime] = utcnow,
    answers: Pipeline | None = None,
) -> list[AnyHandler]:
    """Every kind of job the service runs (test runs need the answer pipeline they ask through)."""
    return [
        *([TestRunner(answers)] if answers is not None else []),
        SourceProcessor(egress, ingestion_config(settings), embedder),
        Crawler(egress, crawl_config(settings)),
        ChatbotSync(egress, settings.crawl_delay),
        SourceReembedder(embedder),
        SessionTagger(embedder, judge, answerer, ToolCaller(egress, settings.tool_call_timeout)),
        ConversationPurger(),
        TestSetWatcher(),
        WebhookSender(egress, clock),
        OperatorMailer(Mailer(settings), settings.public_url),
    ]


@dataclass(frozen=True, kw_only=True)
class Runtime:
    settings: Settings
    database: Database
    egress: EgressClient
    runner: JobRunner
    embedder: Embedder | None
    """Shared by ingestion and retrieval; None with `BOTYARD_EMBEDDER=none`. The bundled model loads (and its file
    is checked) here, at start-up, so a bad installation stops the process before it serves anything."""
    retriever: Retriever
    """Per-chatbot search indexes, cached for the life of the process (keyed by knowledge version)."""
    warmer: IndexWarmer | None
    """Saves large chatbots' indexes ahead of their next question, where jobs run (`retrieval.warmer`); None
    without snapshots (`BOTYARD_INDEX_SNAPSHOTS=false`)."""
    llm: Provider | None
    answers: Pipeline
    """The answer pipeline: the supervisor, the retriever, the answerer (offline, or the LLM's when a provider is
    configured) and the admission bound, one instance for every request."""
    clock: Callable[[], datetime] = field(default=utcnow)
    """Now, for what counts time windows (rate limits); tests pass a clock they move by hand instead of sleeping."""

    @classmethod
    def build(
        cls, settings: Settings, resolver: Resolver | None = None, clock: Callable[[], datetime] = utcnow
    ) -> Runtime:
        keep_large_blocks_apart()  # before the models and the indexes (`memory`)
        embedder = build_embedder(settings)
        database = Database.from_settings(settings)
        egress = EgressClient(settings, resolver)
        answerer, llm = build_answerer(settings)
        judge = None if llm is None else ModelJudge(llm, ModelRegistry.from_settings(settings))
        config = RunnerConfig(
            lease_seconds=settings.job_lease_seconds, concurrency=settings.job_concurrency, clock=clock
        )
        retriever = Retriever(embedder, settings)
        router = AgentRouter(embedder, settings.no_agent_message, judge, retriever.embed_query)
        parts = AnswerParts(
            database=database,
            retriever=retriever,
            answerer=answerer,
            admission=asyncio.Semaphore(settings.answer_admission),
            call_tool=ToolCaller(egress, settings.tool_call_timeout),
            greeting=router.greeting,
        )
        answers = Pipeline(parts, router, ping_seconds=settings.chat_ping_seconds, clock=clock)
        runner = JobRunner(database, job_handlers(settings, egress, embedder, judge, answerer, clock, answers), config)
        return cls(
            settings=settings,
            database=database,
            egress=egress,
            runner=runner,
            embedder=embedder,
            retriever=retriever,
            warmer=IndexWarmer(database, retriever) if settings.index_snapshots else None,
            llm=llm,
            answers=answers,
            clock=clock,
        )

    async def start_jobs(self) -> None:
        """Start the runner, after queueing the re-embedding of chunks another embedder produced (a changed
        `BOTYARD_EMBEDDER` or model takes effect for stored knowledge too, without any command)."""
        await enqueue_reembedding(self.database, self.embedder)
        await self.runner.start()
        if self.warmer is not None:
            self.warmer.start()

    async def close(self) -> None:
        if self.warmer is not None:
            await self.warmer.stop()
        await self.runner.stop()
        await self.egress.aclose()
        await close_embedder(self.embedder)
        if self.llm is not None:
            await self.llm.aclose()
        await self.database.dispose()
