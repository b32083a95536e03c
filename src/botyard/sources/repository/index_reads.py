"""The reads an index is built and kept from (`botyard.retrieval.knowledge.Knowledge`): the knowledge version (read
on every query), the rows an index is built from, the log of what each version changed, and the passage vectors of
the few chunks an answer quotes from. Here, with the repositories that write these tables, so that they have one
owner; retrieval is handed this reader by the runtime."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import LargeBinary, case, func, null, select, type_coerce
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Chatbot, Chunk, DataSource, KnowledgeChange
from botyard.retrieval.knowledge import ChunkRow, Stored, held_all

STREAMED_ROWS = 2_000
"""Rows read from the database at a time while an index's chunks stream in."""


class IndexReads:
    """`Knowledge` read from the database (see the module)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def knowledge_version(self, chatbot_uuid: str) -> int | None:
        """The chatbot's knowledge version, None if there is no such chatbot: the one query every retrieval makes."""
        value = await self.session.scalar(select(Chatbot.knowledge_version).where(Chatbot.uuid == chatbot_uuid))
        return None if value is None else int(value)

    async def knowledge_versions(self) -> dict[str, int]:
        """Every chatbot's knowledge version (the warmer's look, a few times a minute: one row per chatbot)."""
        rows = (await self.session.execute(select(Chatbot.uuid, Chatbot.knowledge_version))).all()
        return {uuid: int(version) for uuid, version in rows}

    async def chunk_count(self, chatbot_uuid: str) -> int:
        statement = select(func.count()).select_from(Chunk).where(Chunk.chatbot_uuid == chatbot_uuid)
        return int((await self.session.execute(statement)).scalar_one())

    async def changed_sources(self, chatbot_uuid: str, after: int, upto: int) -> set[str] | None:
        """The sources that the knowledge versions after `after` up to `upto` changed, or None when the log does not
        hold every one of those versions (pruned, or written before the log existed): then only a rebuild is right.

        Versions commit in order (the chatbot's row lock), so once `upto` is read, every version up to it is there."""
        statement = select(KnowledgeChange.version, KnowledgeChange.data_source_uuid).where(
            KnowledgeChange.chatbot_uuid == chatbot_uuid,
            KnowledgeChange.version > after,
            KnowledgeChange.version <= upto,
        )
        rows = (await self.session.execute(statement)).all()
        if len({row.version for row in rows}) != upto - after:
            return None
        return {row.data_source_uuid for row in rows}

    async def chunks(
        self,
        chatbot_uuid: str,
        embedder: str | None,
        sources: Collection[str] | None = None,
        chunk_uuids: Collection[str] | None = None,
    ) -> tuple[list[ChunkRow], list[Stored]]:
        """Every chunk of the chatbot, or of these of its `sources` (the index puts them in its own order), and their
        vectors in the same order: only those the current embedder made, None otherwise (other models' vectors are
        in another space). Apart, so that the index keeps them once, in its matrices, not also beside each row.

        One statement for the chunks: on PostgreSQL (read committed) a statement sees one snapshot, so a source
        replaced meanwhile appears whole, old or new. The caller reads the version first: the chunks are then at least
        as new as the version they are cached under, and a newer version only costs one more rebuild. The sources'
        facts are read apart, once per source (joined, 100k chunks decoded their source's JSON meta 100k times); a
        chunk whose source row is gone by then (deleted meanwhile) is left out, as the join left it out.
        """
        known = await self._sources(chatbot_uuid, sources, chunk_uuids)
        current = case((Chunk.embedder == embedder, Chunk.embedding), else_=null()) if embedder else null()
        vector = type_coerce(current, LargeBinary)
        chunk = (Chunk.uuid, Chunk.data_source_uuid, Chunk.position, Chunk.heading, Chunk.text, Chunk.tokens)
        analysed = (Chunk.terms, Chunk.terms_tag)
        statement = select(*chunk, *analysed, vector.label("vector")).where(Chunk.chatbot_uuid == chatbot_uuid)
        if sources is not None:
            statement = statement.where(Chunk.data_source_uuid.in_(sorted(sources)))
        if chunk_uuids is not None:  # a search's candidates (the postgres backend)
            statement = statement.where(Chunk.uuid.in_(sorted(chunk_uuids)))
        # Streamed through Core (the ORM's row processing cost a third of the read), each partition's vectors made
        # float16 at once: read whole, 100k chunks' float32 vectors held 358 MB at once (besides the index being
        # built from them), and the rows' result objects as much again.
        rows: list[ChunkRow] = []
        vectors: list[Stored] = []
        headings: dict[str, str] = {}
        connection = await self.session.connection()
        result = await connection.stream(statement)
        async for partition in result.partitions(STREAMED_ROWS):
            kept = [row for row in partition if row.data_source_uuid in known]
            rows.extend(_row(row, known[row.data_source_uuid], headings) for row in kept)
            vectors.extend(held_all([row.vector for row in kept]))
        return rows, vectors

    async def _sources(
        self, chatbot_uuid: str, sources: Collection[str] | None, chunk_uuids: Collection[str] | None = None
    ) -> dict[str, ChunkRow]:
        """What rows show of each of the chatbot's sources (or of these `sources`), as a row without a chunk of its
        own: its strings and meta are then shared by its rows (at 100k chunks a copy per row held about 38 MB)."""
        statement = select(DataSource.uuid, DataSource.title, DataSource.type, DataSource.meta, DataSource.file_name)
        statement = statement.where(DataSource.chatbot_uuid == chatbot_uuid)
        if sources is not None:
            statement = statement.where(DataSource.uuid.in_(sorted(sources)))
        if chunk_uuids is not None:  # only those chunks' sources, not a large chatbot's thousands
            of_chunks = select(Chunk.data_source_uuid).where(Chunk.uuid.in_(sorted(chunk_uuids)))
            statement = statement.where(DataSource.uuid.in_(of_chunks))
        found: dict[str, ChunkRow] = {}
        for row in await self.session.execute(statement):
            meta = dict(row.meta or {})
            found[row.uuid] = ChunkRow("", row.uuid, 0, "", "", row.title or "", row.type, meta, 0, row.file_name or "")
        return found

    async def passage_vectors(self, chunk_uuids: Sequence[str], embedder: str) -> dict[str, bytes]:
        """The stored passage vectors of these chunks that `embedder` produced (by chunk uuid): a few primary-key
        reads per answer, rather than every passage's vector in every process's memory."""
        if not chunk_uuids:
            return {}
        statement = select(Chunk.uuid, Chunk.passage_vectors).where(
            Chunk.uuid.in_(chunk_uuids), Chunk.embedder == embedder, Chunk.passage_vectors.is_not(None)
        )
        return {row.uuid: row.passage_vectors for row in await self.session.execute(statement)}


def _row(row: Any, source: ChunkRow, headings: dict[str, str]) -> ChunkRow:
    """A chunk's row, sharing its source's strings and meta (`_sources`) and equal headings' strings."""
    heading = row.heading or ""
    return ChunkRow(
        row.uuid,
        row.data_source_uuid,
        row.position,
        headings.setdefault(heading, heading),
        row.text,
        source.source_title,
        source.source_type,
        source.source_meta,
        row.tokens,
        source.source_file_name,
        row.terms,
        row.terms_tag,
    )
