"""The embedding stage of ingestion, and re-embedding when the configured embedder changes.

Every chunk records the `Embedder.name` that produced its vector. New chunks are embedded before the transaction
that stores them (`process_source`), so they appear with their vectors or not at all. Chunks that the current
embedder did not produce (another model, or none while the service ran with `BOTYARD_EMBEDDER=none`) are embedded
again in place, keeping their uuids: by `process_source` when it finds the content unchanged, and by the
`reembed_source` job that a starting worker queues for every such source (`enqueue_reembedding`).

Embedding failures end, like the other stages' failures, in the source's status: a passing one (the endpoint is
unreachable or overloaded) is retried by the job runner, and `error:embedding` is recorded when it gives up.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import utcnow
from botyard.db.session import Database
from botyard.embedding import Embedder, EmbeddingError, Vectors, encode_matrix, encode_vector
from botyard.ingestion.errors import SourceFailed, SourceRetry
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import JobKind, JobPayload, ReembedSource
from botyard.jobs.service import enqueue
from botyard.models import Chunk, SourceError
from botyard.outbox import events as webhooks
from botyard.passages import passages
from botyard.sources.repository import ChunkRepository, DataSourceRepository

log = logging.getLogger(__name__)

EMBED_BATCH_CHUNKS = 64
"""Chunks embedded in one call, with their passages (a few hundred texts): the texts, their encodings and their
vectors for one batch at a time, so that a source of thousands of chunks (a 240-sheet workbook) embeds in memory
bounded by the batch instead of by the source, and a cancelled job stops between batches."""

REASON = "embedding"
"""The failure reason: a source whose chunks could not be embedded ends `error:embedding`."""


def embedding_text(heading: str, text: str) -> str:
    """What a chunk's vector is computed from: its text under its heading path, which says what the text is about
    (a paragraph of a "Returns > Fees" section rarely repeats the word "returns")."""
    return f"{heading}\n\n{text}" if heading else text


async def embed_texts(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """`embedder.embed_documents`, with its failures turned into the stage's retry-or-fail exceptions."""
    try:
        return await embedder.embed_documents(texts)
    except EmbeddingError as error:
        log.warning("embedding with %s failed: %s", embedder.name, error)
        raise (SourceRetry(REASON) if error.retryable else SourceFailed(REASON)) from error
    except Exception as error:  # a model failure is unexpected: retried, and recorded as embedding if it persists
        log.exception("embedding with %s failed", embedder.name)
        raise SourceRetry(REASON) from error


async def embed_with_passages(embedder: Embedder, chunks: Sequence[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    """(vector, passage vectors) of each (heading, text) chunk, in one batch: the chunk's vector ranks it, its
    passages' vectors let the offline answerer quote the passage that answers by meaning (`botyard.passages`)."""
    texts = [embedding_text(heading, text) for heading, text in chunks]
    split = [[embedding_text(heading, p.text) for p in passages(text)] for heading, text in chunks]
    vectors = await embed_texts(embedder, texts + [text for texts_of_chunk in split for text in texts_of_chunk])
    found: list[tuple[bytes, bytes]] = []
    start = len(chunks)
    for index, texts_of_chunk in enumerate(split):
        found.append((encode_vector(vectors[index]), encode_matrix(vectors[start : start + len(texts_of_chunk)])))
        start += len(texts_of_chunk)
    return found


async def embed_chunks(embedder: Embedder, chunks: Sequence[Chunk]) -> None:
    """Give new (not yet stored) chunks their vectors and the embedder's name."""
    for start in range(0, len(chunks), EMBED_BATCH_CHUNKS):
        batch = chunks[start : start + EMBED_BATCH_CHUNKS]
        embedded = await embed_with_passages(embedder, [(chunk.heading, chunk.text) for chunk in batch])
        for chunk, (vector, passage_vectors) in zip(batch, embedded, strict=True):
            chunk.embedding, chunk.passage_vectors = vector, passage_vectors
            chunk.embedder = embedder.name


async def stale_chunks(ctx: JobContext[JobPayload], source_uuid: str, embedder: Embedder) -> list[tuple[str, str, str]]:
    """(uuid, heading, text) of the stored chunks of a source that `embedder` did not embed."""
    return await ctx.read(lambda db: ChunkRepository(db).stale(source_uuid, embedder.name))


async def embed_stale(embedder: Embedder, stale: Sequence[tuple[str, str, str]]) -> list[tuple[str, bytes, bytes]]:
    """(chunk uuid, vector, passage vectors) for the chunks `stale_chunks` found, to write with `ChunkRepository`."""
    found: list[tuple[str, bytes, bytes]] = []
    for start in range(0, len(stale), EMBED_BATCH_CHUNKS):
        batch = stale[start : start + EMBED_BATCH_CHUNKS]
        embedded = await embed_with_passages(embedder, [(heading, text) for _, heading, text in batch])
        found += [(uuid, *vectors) for (uuid, _, _), vectors in zip(batch, embedded, strict=True)]
    return found


class SourceReembedder:
    """The job handler for `reembed_source`: embeds a source's stale chunks in
    place. The source's status is left alone unless this fails for good; its content and chunks do not change."""

    payload_type = ReembedSource
    timeout_seconds = 1800.0
    retries_timeouts = False  # the same document takes as long again: `JobHandler`

    def __init__(self, embedder: Embedder | None) -> None:
        self.embedder = embedder

    async def run(self, ctx: JobContext[ReembedSource]) -> None:
        if self.embedder is None:  # the service switched to `none` since the job was queued: nothing to embed for
            return
        source_uuid = ctx.payload.data_source_uuid
        vectors = await embed_stale(self.embedder, await stale_chunks(ctx, source_uuid, self.embedder))
        name = self.embedder.name

        async def store(db: AsyncSession) -> None:
            source = await DataSourceRepository(db).get(source_uuid)
            if source is not None:
                await ChunkRepository(db).set_embeddings(source, vectors, name)

        if vectors:
            await ctx.finish(store)

    async def give_up(self, session: AsyncSession, payload: ReembedSource, reason: str) -> None:
        source = await DataSourceRepository(session).get(payload.data_source_uuid)
        if source is not None:
            source.status = SourceError(REASON).status
            await webhooks.source_failed(session, source, utcnow())


async def enqueue_reembedding(database: Database, embedder: Embedder | None) -> int:
    """Queue `reembed_source` for every source with chunks the configured embedder did not embed (none when it is
    `none`: stored vectors are then kept, unused, for a switch back). Called when a job runner starts; sources that
    already have a processing job waiting are left to it. Returns how many jobs were queued."""
    if embedder is None:
        return 0
    async with database.transaction() as db:
        pending = (JobKind.PROCESS_SOURCE, JobKind.REEMBED_SOURCE)
        sources = await ChunkRepository(db).sources_to_reembed(embedder.name, pending)
        for source_uuid, chatbot_uuid in sources:
            payload = ReembedSource(source_uuid)
            await enqueue(db, payload, chatbot_uuid=chatbot_uuid, data_source_uuid=source_uuid)
    if sources:
        log.info("queued re-embedding of %d sources for %s", len(sources), embedder.name)
    return len(sources)
