"""The chunks of sources, and the chatbot's knowledge version that every change of them bumps (the key of every
process's in-memory search index: `retrieval.retriever`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import ColumnElement, Table, bindparam, delete, exists, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots import service as chatbots
from botyard.db.repository import Repository
from botyard.models import Chunk, DataSource, Job, JobStatus, KnowledgeChange

KEPT_VERSIONS = 1000
"""Knowledge versions of a chatbot whose changes are kept: a process whose index is older rebuilds it whole (by then
a rebuild costs about what catching up would)."""


def _stale(embedder: str) -> ColumnElement[bool]:
    """Chunks that `embedder` did not embed (embedded by another model, or not at all, or before passages had
    vectors)."""
    return or_(Chunk.embedder.is_(None), Chunk.embedder != embedder, Chunk.passage_vectors.is_(None))


async def bump_version(session: AsyncSession, chatbot_uuid: str, source_uuids: Iterable[str]) -> None:
    """A new knowledge version of the chatbot (its owner, `chatbots`, writes it), which changed these sources' chunks
    (or what retrieval shows of them): the search indexes of every process reload just those (`KnowledgeChange`)."""
    version = await chatbots.next_knowledge_version(session, chatbot_uuid)
    if version is None:
        return
    changes = [
        {"chatbot_uuid": chatbot_uuid, "version": version, "data_source_uuid": uuid} for uuid in set(source_uuids)
    ]
    if changes:
        await session.execute(insert(KnowledgeChange), changes)
    await session.execute(
        delete(KnowledgeChange).where(
            KnowledgeChange.chatbot_uuid == chatbot_uuid, KnowledgeChange.version <= version - KEPT_VERSIONS
        )
    )


class ChunkRepository(Repository[Chunk]):
    """A source's chunks: replaced as a whole, embedded, and read by the owner (text and figures, never vectors).
    Every write bumps the chatbot's knowledge version here, so no caller can forget it."""

    model = Chunk

    async def replace(self, source: DataSource, chunks: Sequence[Chunk]) -> None:
        await self.session.execute(delete(Chunk).where(Chunk.data_source_uuid == source.uuid))
        self.session.add_all(chunks)
        await self.session.flush()
        await self.bump_version(source.chatbot_uuid, [source.uuid])

    async def bump_version(self, chatbot_uuid: str, source_uuids: Iterable[str]) -> None:
        await bump_version(self.session, chatbot_uuid, source_uuids)

    async def count_of(self, source_uuid: str) -> int:
        statement = select(func.count()).select_from(Chunk).where(Chunk.data_source_uuid == source_uuid)
        return int(await self.session.scalar(statement) or 0)

    async def of_source(self, source_uuid: str) -> Sequence[Chunk]:
        return await self.all(select(Chunk).where(Chunk.data_source_uuid == source_uuid).order_by(Chunk.position))

    async def stale(self, source_uuid: str, embedder: str) -> list[tuple[str, str, str]]:
        """(uuid, heading, text) of the source's chunks that `embedder` has yet to embed."""
        statement = (
            select(Chunk.uuid, Chunk.heading, Chunk.text)
            .where(Chunk.data_source_uuid == source_uuid, _stale(embedder))
            .order_by(Chunk.position)
        )
        return [(row.uuid, row.heading, row.text) for row in await self.session.execute(statement)]

    async def set_embeddings(
        self, source: DataSource, vectors: Sequence[tuple[str, bytes, bytes]], embedder: str
    ) -> None:
        """Store (chunk uuid, vector, passage vectors), skipping chunks replaced or embedded meanwhile, and bump the
        knowledge version (the dense index caches are keyed by it; executemany row counts are not reliable on every
        driver, so it is bumped even if every chunk was skipped, which only costs a cache rebuild)."""
        if not vectors:
            return
        # Core, not ORM: an executemany keyed by uuid that tolerates rows deleted meanwhile.
        table = Chunk.__table__
        assert isinstance(table, Table)
        statement = (
            update(table)
            .where(table.c.uuid == bindparam("chunk_uuid"), _stale(embedder))
            .values(embedding=bindparam("vector"), passage_vectors=bindparam("passages"), embedder=embedder)
        )
        rows = [{"chunk_uuid": uuid, "vector": vector, "passages": passages} for uuid, vector, passages in vectors]
        connection = await self.session.connection()
        await connection.execute(statement, rows)
        await self.bump_version(source.chatbot_uuid, [source.uuid])

    async def sources_to_reembed(self, embedder: str, pending_kinds: Sequence[str]) -> list[tuple[str, str]]:
        """(source uuid, chatbot uuid) of every source with chunks `embedder` did not embed and no job of
        `pending_kinds` queued or running for it (that job will embed them)."""
        pending = exists().where(
            Job.data_source_uuid == Chunk.data_source_uuid,
            Job.kind.in_(pending_kinds),
            Job.status.in_((JobStatus.QUEUED, JobStatus.RUNNING)),
        )
        statement = select(Chunk.data_source_uuid, Chunk.chatbot_uuid).where(_stale(embedder), ~pending).distinct()
        return [(row.data_source_uuid, row.chatbot_uuid) for row in await self.session.execute(statement)]

    async def page_of(self, source_uuid: str, offset: int, limit: int) -> list[tuple[int, str, str, int, bool]]:
        """(position, heading, text, tokens, embedded) of the source's chunks in order, `limit` from `offset`."""
        statement = (
            select(Chunk.position, Chunk.heading, Chunk.text, Chunk.tokens, Chunk.embedding.is_not(None))
            .where(Chunk.data_source_uuid == source_uuid)
            .order_by(Chunk.position)
            .offset(offset)
            .limit(limit)
        )
        rows = await self.session.execute(statement)
        return [(int(p), str(h), str(t), int(n), bool(e)) for p, h, t, n, e in rows.all()]
