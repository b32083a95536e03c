"""The `process_source` job: extract a source's text, chunk it, count its tokens, embed the chunks, store them.

Stages move the source's `status` along (`downloading` → `extracting` → `chunking` → `embedding` → `success`),
each write fenced by the job's lease; a stage shows only if it lasts (`sources.processing.stages`). The chunks (with
their vectors), the final status and the job's completion are written in one transaction, so readers see the old
chunks or the new ones, never a mix, and a re-run replaces instead of duplicating. Content whose hash did not
change is not chunked again, and its chunks are embedded again only if the configured embedder did not produce
them (`botyard.sources.processing.embed`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import iso, utcnow
from botyard.egress import EgressClient
from botyard.embedding import Embedder
from botyard.ingestion.chunk import ChunkingConfig, chunk_markdown
from botyard.ingestion.errors import SourceFailed, SourceRetry
from botyard.ingestion.freshness import GONE_AFTER_MISSES, check_page
from botyard.ingestion.parse import ParsedDocument, ParseError, ParseLimits, SandboxError, parse_file
from botyard.ingestion.qa import atomic_chunk, content_hash, qa_text_of
from botyard.ingestion.tokens import count_tokens
from botyard.jobs.reasons import shown_reason
from botyard.jobs.runner import JobContext
from botyard.models import Chunk, DataSource, Job
from botyard.outbox import events as webhooks
from botyard.sources.processing.embed import embed_chunks, embed_stale, stale_chunks
from botyard.sources.processing.jobs import PROCESS_SOURCE
from botyard.sources.processing.stages import SHOW_AFTER, StageReporter
from botyard.sources.repository import ChunkRepository, DataSourceRepository, SourceFileRepository
from botyard.sources.terms import keep_terms

__all__ = ["Extracted", "IngestionConfig", "SourceFailed", "SourceProcessor", "SourceRetry"]


@dataclass(frozen=True)
class Extracted:
    markdown: str
    title: str | None = None
    fetched_bytes: int | None = None
    atomic: bool = False
    """One chunk whatever its size (a Q&A pair: the answer must never be separated from its question)."""
    prefetched: bool = False
    """A crawl fetched the page and stored it with the source: the copy is dropped once the chunks are stored, so a
    re-scrape fetches the page again."""
    unchanged: bool = False
    """A page checked again has not changed (a 304, or the same bytes): nothing to parse, chunk or embed."""
    meta: dict[str, Any] = field(default_factory=dict)
    """What the fetch teaches about the page for the next check (`etag`, `last_modified`, `body_sha256`, `misses`)."""


@dataclass(frozen=True)
class IngestionConfig:
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    parse_limits: ParseLimits = field(default_factory=ParseLimits)
    max_fetch_bytes: int = 20 * 1024 * 1024
    max_chunks: int = 2_000
    """A source that makes more chunks fails at once (`error:too large - over N chunks`) instead of running out the
    job's timeout embedding them (`Settings.ingest_max_chunks` says how the default was chosen)."""
    show_stage_after: float = SHOW_AFTER
    """Seconds a stage must last before the source's status shows it."""


class SourceProcessor:
    """The job handler for `process_source`; its payload is `{"data_source_uuid": ...}`."""

    kind = PROCESS_SOURCE
    timeout_seconds = 1800.0
    retries_timeouts = False  # the same document takes as long again: `JobHandler`
    """Embedding runs at about 20 chunks/s on the bundled model: a large upload (thousands of chunks) needs minutes.
    The lease, not this timeout, is what notices a dead worker."""

    def __init__(
        self, egress: EgressClient, config: IngestionConfig | None = None, embedder: Embedder | None = None
    ) -> None:
        self.egress = egress
        self.config = config or IngestionConfig()
        self.embedder = embedder
        """None: chunks are stored without vectors (`BOTYARD_EMBEDDER=none`, keyword search only)."""

    async def run(self, ctx: JobContext) -> None:
        source_uuid = str(ctx.payload["data_source_uuid"])
        source = await ctx.read(lambda db: DataSourceRepository(db).get(source_uuid))
        if source is None:  # deleted since the job was queued
            return
        stages = StageReporter(ctx, source_uuid, self.config.show_stage_after)
        try:
            extracted = await self._extract(stages, ctx, source)
            if extracted.unchanged:
                await self._keep(ctx, source_uuid, extracted, stages)
            elif not extracted.markdown.strip():
                raise SourceFailed("no text")
            else:
                await self._store(ctx, source, extracted, stages)
        finally:
            stages.cancel()

    async def give_up(self, session: AsyncSession, job: Job, reason: str) -> None:
        source = await DataSourceRepository(session).get(str(job.payload.get("data_source_uuid")))
        if source is not None:
            source.status = "error:" + shown_reason(reason)
            await webhooks.source_failed(session, source, utcnow())

    async def _keep(self, ctx: JobContext, source_uuid: str, extracted: Extracted, stages: StageReporter) -> None:
        """A page that did not change keeps its chunks, embedded again only if another embedder produced them."""
        embedder = self.embedder
        fresh: list[tuple[str, bytes, bytes]] = []
        if embedder is not None and (stale := await stale_chunks(ctx, source_uuid, embedder)):
            await stages.enter("embedding")
            fresh = await embed_stale(embedder, stale)
        await stages.settle()

        async def keep(db: AsyncSession) -> None:
            current = await DataSourceRepository(db).get(source_uuid)
            if current is None:
                return
            if fresh and embedder is not None:
                await ChunkRepository(db).set_embeddings(current, fresh, embedder.name)
            current.meta = {**current.meta, **extracted.meta, "checked_at": iso(utcnow())}
            current.status = "success"

        await ctx.finish(keep)

    async def _store(self, ctx: JobContext, source: DataSource, extracted: Extracted, stages: StageReporter) -> None:
        """New content: chunked and embedded outside any transaction, then stored with the source's final status and
        the job's completion in one. Content that did not change keeps its chunks (re-embedded if they are stale)."""
        embedder = self.embedder
        text_hash = content_hash(extracted.markdown)
        chunks: list[Chunk] | None = None
        vectors: list[tuple[str, bytes, bytes]] = []
        if text_hash != source.content_hash:
            await stages.enter("chunking")
            chunks, tokens = await self._chunk(source, extracted)
            if embedder is not None:
                await stages.enter("embedding")
                await embed_chunks(embedder, chunks)
        else:
            tokens = await asyncio.to_thread(count_tokens, extracted.markdown)
            if embedder is not None and (stale := await stale_chunks(ctx, source.uuid, embedder)):
                await stages.enter("embedding")
                vectors = await embed_stale(embedder, stale)

        async def store(db: AsyncSession) -> None:
            current = await DataSourceRepository(db).get(source.uuid)
            if current is None or (current.type == "qa" and qa_text_of(current) != extracted.markdown):
                return  # deleted, or a pair edited meanwhile: the edit stored its chunk and queued its own job
            if text_hash != current.content_hash:
                if chunks is None:  # another run stored other content meanwhile: start again from it
                    raise SourceRetry("changed meanwhile")
                await ChunkRepository(db).replace(current, chunks)
            elif vectors and embedder is not None:
                await ChunkRepository(db).set_embeddings(current, vectors, embedder.name)
            if extracted.prefetched:
                await SourceFileRepository(db).remove(current.uuid)
            _record(current, extracted, text_hash, tokens)

        await stages.settle()
        await ctx.finish(store)

    async def _chunk(self, source: DataSource, extracted: Extracted) -> tuple[list[Chunk], int]:
        """The chunks and the document's token count; a permanent failure when they are over `max_chunks` (chunking
        is a pure function of the text: a retry would find as many)."""
        chunks = await asyncio.to_thread(self._chunks, source, extracted)
        tokens = await asyncio.to_thread(count_tokens, extracted.markdown)
        if len(chunks) > self.config.max_chunks:
            raise SourceFailed(f"too large - over {self.config.max_chunks} chunks")
        return chunks, tokens

    def _chunks(self, source: DataSource, extracted: Extracted) -> list[Chunk]:
        chunks = self._pieces(source, extracted)
        keep_terms(chunks)
        return chunks

    def _pieces(self, source: DataSource, extracted: Extracted) -> list[Chunk]:
        if extracted.atomic:
            return [atomic_chunk(source, extracted.markdown)]
        found = chunk_markdown(extracted.markdown, self.config.chunking)
        pieces = [(chunk.heading(), chunk.text) for chunk in found]
        return [
            Chunk(
                data_source_uuid=source.uuid,
                chatbot_uuid=source.chatbot_uuid,
                position=position,
                heading=heading,
                text=text,
                tokens=count_tokens(text),
            )
            for position, (heading, text) in enumerate(pieces)
        ]

    async def _extract(self, stages: StageReporter, ctx: JobContext, source: DataSource) -> Extracted:
        if source.type == "qa":
            return Extracted(qa_text_of(source), atomic=True)
        if source.type == "link":
            return await self._extract_link(stages, ctx, source)
        if source.type == "upload":
            return await self._extract_upload(stages, ctx, source)
        raise SourceFailed("unsupported type")

    async def _extract_link(self, stages: StageReporter, ctx: JobContext, source: DataSource) -> Extracted:
        url = str(source.meta.get("url") or source.file_name)
        stored = await ctx.read(lambda db: SourceFileRepository(db).of_source(source.uuid))
        if stored is not None:
            await stages.enter("extracting")
            parsed = await self._parse(stored.content, _name_for(url, stored.content_type), stored.content_type)
            meta = {"body_sha256": stored.sha256}
            return Extracted(parsed.markdown, parsed.title, len(stored.content), prefetched=True, meta=meta)
        await stages.enter("downloading")
        seen = source.content_hash is not None  # stored before: ask only whether it changed
        check = await check_page(self.egress, url, source.meta if seen else {}, self.config.max_fetch_bytes)
        if check.outcome == "failed":
            raise SourceRetry(check.reason) if check.retry else SourceFailed(check.reason)
        if check.outcome == "gone":
            if not seen:  # never stored: an address error, shown as such
                raise SourceFailed(check.reason)
            misses = int(source.meta.get("misses", 0)) + 1
            if misses >= GONE_AFTER_MISSES:
                raise SourceFailed("not found")
            return Extracted("", unchanged=True, meta={"misses": misses})  # once may be a hiccup: keep the page
        if check.outcome == "unchanged":
            return Extracted("", unchanged=True, meta={**check.meta, "misses": 0})
        assert check.result is not None
        await stages.enter("extracting")
        result = check.result
        parsed = await self._parse(result.body, _name_for(result.url, result.content_type), result.content_type)
        return Extracted(parsed.markdown, parsed.title, fetched_bytes=len(result.body), meta=check.meta)

    async def _extract_upload(self, stages: StageReporter, ctx: JobContext, source: DataSource) -> Extracted:
        await stages.enter("extracting")

        async def load(db: AsyncSession) -> tuple[bytes, str] | None:
            stored = await SourceFileRepository(db).of_source(source.uuid)
            return None if stored is None else (stored.content, stored.content_type)

        loaded = await ctx.read(load)
        if loaded is None:
            raise SourceFailed("file missing")
        parsed = await self._parse(loaded[0], source.file_name, loaded[1])
        return Extracted(parsed.markdown, parsed.title)

    async def _parse(self, data: bytes, name: str, content_type: str | None) -> ParsedDocument:
        try:
            return await parse_file(data, name, self.config.parse_limits, content_type=content_type)
        except ParseError as error:
            raise SourceFailed(error.reason) from error
        except SandboxError as error:
            raise SourceRetry("sandbox") from error


def _record(source: DataSource, extracted: Extracted, content_hash: str, tokens: int) -> None:
    """What a successful run sets on its source."""
    source.status = "success"
    source.tokens = tokens
    source.content_hash = content_hash
    source.modified_at = utcnow()
    if extracted.fetched_bytes is not None:
        source.file_size = extracted.fetched_bytes
    if extracted.title and source.title == source.file_name:  # still the URL: take the page's title
        source.title = extracted.title[:500]
    if extracted.meta:
        source.meta = {**source.meta, **extracted.meta, "misses": 0}


def _name_for(url: str, content_type: str) -> str:
    """A file name for a fetched page, so that the parser's sniffing has an extension to weigh."""
    path = url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    last = path.rsplit("/", 1)[-1]
    if "." in last:
        return last
    known = {"text/html": "page.html", "application/pdf": "page.pdf", "text/plain": "page.txt"}
    return known.get(content_type, "page.html")
