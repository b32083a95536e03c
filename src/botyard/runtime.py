"""The long-lived parts of a process (database, egress client, embedder, answer pipeline, job runner), built once
by `botyard serve` (in the app's lifespan) or by `botyard worker`, never at import time. Handlers never see it
whole: the app hands each part to the dependencies that need it (`deps.py`, `answering/router.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from botyard.answering.background.tagging import SessionTagger
from botyard.answering.base import Answerer
from botyard.answering.pipeline import Pipeline
from botyard.answering.routing.judge import ModelJudge
from botyard.answering.routing.supervisor import AgentRouter
from botyard.answering.select import build_answerer
from botyard.answering.tools import ToolCaller
from botyard.answering.turn.parts import AnswerParts
from botyard.channels.answering import ChannelAnswerer
from botyard.channels.polling import ChannelPollers
from botyard.channels.relay import ChannelRelayer
from botyard.channels.sending import ChannelSender
from botyard.chat.history.retention import ConversationPurger
from botyard.config import Settings
from botyard.cors import Origins
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
from botyard.retrieval.embedded.search import EmbeddedSearch
from botyard.retrieval.embedded.shared import PURPOSE as SHARED_SNAPSHOTS
from botyard.retrieval.embedded.warmer import IndexWarmer
from botyard.retrieval.postgres.repository.schema import SearchSetupError
from botyard.retrieval.postgres.search import PostgresSearch
from botyard.retrieval.retriever import Retriever
from botyard.service_settings.cipher import Cipher
from botyard.service_settings.fields import LLM_FIELDS
from botyard.service_settings.live import Apply, LiveSettings
from botyard.sources.processing.embed import SourceReembedder, enqueue_reembedding
from botyard.sources.processing.pipeline import IngestionConfig, SourceProcessor
from botyard.sources.repository import IndexReads
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
    asking: list[AnyHandler] = (
        [] if answers is None else [TestRunner(answers), ChannelAnswerer(answers, settings, egress)]
    )
    return [
        *asking,
        ChannelSender(settings, egress, clock),
        ChannelRelayer(),
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


@runtime_checkable
class FollowsModelChange(Protocol):
    """A part that uses the model connection and follows its change: the pipeline (its answerer), the supervisor (its
    judge), the tagger (its judge and tool caller). A part declares it by having the method; the runtime collects
    them (`followers`)."""

    def follow_model(self, answerer: Answerer, judge: ModelJudge | None) -> None:
        """Use `answerer` and `judge` for the work that starts next."""


def followers(answers: Pipeline, runner: JobRunner) -> list[FollowsModelChange]:
    """The parts of the process that follow a model change: the pipeline, its supervisor and the job handlers that
    say so."""
    handlers = [handler for handler in runner.handlers.values() if isinstance(handler, FollowsModelChange)]
    return [answers, answers.router, *handlers]


class ModelSwitch:
    """The process's connection to a language model, rebuilt when its settings change (`service_settings`): the
    parts that follow it (`FollowsModelChange`) get the new answerer and judge for the work that starts next. The
    provider they replace is closed once an answer begun with it has had its whole time (`llm_total_timeout`)."""

    def __init__(self, followers: Sequence[FollowsModelChange], provider: Provider | None) -> None:
        self.followers = list(followers)
        self.provider = provider
        self._closing: set[asyncio.Task[None]] = set()

    def switch(self, settings: Settings) -> None:
        """Use the model connection of `settings` from the next answer on; ValueError (a model map naming no
        catalogue model) before anything is built or changed."""
        registry = ModelRegistry.from_settings(settings)
        answerer, provider = build_answerer(settings)
        judge = None if provider is None else ModelJudge(provider, registry)
        for follower in self.followers:
            follower.follow_model(answerer, judge)
        old, self.provider = self.provider, provider
        if old is not None:
            task = asyncio.create_task(_close_later(old, settings.llm_total_timeout))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        for task in list(self._closing):
            task.cancel()
        await asyncio.gather(*self._closing, return_exceptions=True)
        if self.provider is not None:
            await self.provider.aclose()


def _applier(egress: EgressClient, origins: Origins, models: ModelSwitch) -> Apply:
    """How this process follows changed settings: the parts that read them swapped in place."""

    async def apply(old: Settings, new: Settings) -> None:
        # What may refuse the new settings (ValueError) goes first, so that a refusal changes nothing.
        if any(getattr(old, name) != getattr(new, name) for name in LLM_FIELDS):
            models.switch(new)
        egress.configure(new.egress_allowlist, new.egress_allowed_ports)
        origins.set(new.cors_origins)

    return apply


async def _close_later(provider: Provider, delay: float) -> None:
    try:
        await asyncio.sleep(delay)
    finally:
        await provider.aclose()


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
    """Saves large chatbots' indexes ahead of their next question, where jobs run (`retrieval.embedded.warmer`); None
    without snapshots (`BOTYARD_INDEX_SNAPSHOTS=false`)."""
    pollers: ChannelPollers
    """Telegram long polling of the channels that poll, where jobs run: one process per bot (`channels.polling`)."""
    answers: Pipeline
    """The answer pipeline: the supervisor, the retriever, the answerer (offline, or the LLM's when a provider is
    configured) and the admission bound, one instance for every request."""
    models: ModelSwitch
    origins: Origins
    """The CORS origins in use (`cors.ServiceCors` reads them on every request)."""
    live: LiveSettings
    """The effective settings (environment, else the dashboard's, else default), followed without a restart."""
    clock: Callable[[], datetime] = field(default=utcnow)
    """Now, for what counts time windows (rate limits); tests pass a clock they move by hand instead of sleeping."""

    @classmethod
    def build(
        cls,
        settings: Settings,
        resolver: Resolver | None = None,
        clock: Callable[[], datetime] = utcnow,
        origins: Origins | None = None,
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
        retriever = Retriever(embedder, IndexReads)
        warmer = _search_engine(settings, database, embedder, retriever)
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
        models = ModelSwitch(followers(answers, runner), llm)
        origins = origins or Origins(settings.cors_origins)
        return cls(
            models=models,
            origins=origins,
            live=LiveSettings(settings, database, _applier(egress, origins, models)),
            settings=settings,
            database=database,
            egress=egress,
            runner=runner,
            embedder=embedder,
            retriever=retriever,
            warmer=warmer,
            pollers=ChannelPollers(database, settings, egress, clock),
            answers=answers,
            clock=clock,
        )

    async def follow_settings(self) -> None:
        """Use the settings stored by the dashboard, and follow their changes (before serving or running jobs); and
        check that the search backend can serve (`SearchSetupError` says what to set up)."""
        if self.retriever.backend is not None:
            await self.retriever.backend.check()
        await self.live.refresh()
        self.live.start()

    async def start_jobs(self) -> None:
        """Start the runner, after queueing the re-embedding of chunks another embedder produced (a changed
        `BOTYARD_EMBEDDER` or model takes effect for stored knowledge too, without any command)."""
        await enqueue_reembedding(self.database, self.embedder)
        await self.runner.start()
        if self.warmer is not None:
            self.warmer.start()
        self.pollers.start()

    async def close(self) -> None:
        await self.pollers.stop()
        if self.warmer is not None:
            await self.warmer.stop()
        await self.live.stop()
        await self.runner.stop()
        await self.egress.aclose()
        await close_embedder(self.embedder)
        await self.models.aclose()
        await self.database.dispose()


def _search_engine(
    settings: Settings, database: Database, embedder: Embedder | None, retriever: Retriever
) -> IndexWarmer | None:
    """The retriever's search backend (`BOTYARD_SEARCH`), and the warmer of the embedded one's indexes."""
    if settings.search == "postgres":
        if settings.is_sqlite:
            raise SearchSetupError(
                "BOTYARD_SEARCH=postgres searches in PostgreSQL: set BOTYARD_DATABASE_URL to a PostgreSQL database "
                "with the vector extension, or BOTYARD_SEARCH=embedded"
            )
        replica = None
        if settings.search_read_url:
            replica = Database.from_settings(settings.model_copy(update={"database_url": settings.search_read_url}))
        retriever.backend = PostgresSearch(embedder, database, IndexReads, retriever.unrelated_vectors, replica)
        return None
    embedded = EmbeddedSearch(embedder, settings, IndexReads, retriever.unrelated_vectors)
    if not settings.is_sqlite:  # SQLite's processes share one data directory, and its snapshots with it
        embedded.share_through(database, Cipher(settings).derived_key(SHARED_SNAPSHOTS))
    retriever.backend = embedded
    return IndexWarmer(database, embedded) if settings.index_snapshots else None
