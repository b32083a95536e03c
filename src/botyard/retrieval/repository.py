"""The SQL of retrieval: the knowledge version (read on every query), the rows an index is built from, and the
passage vectors of the few chunks an answer quotes from."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import LargeBinary, case, null, select, type_coerce
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Chatbot, Chunk, DataSource, KnowledgeChange
from botyard.retrieval.dense import Stored, held

STREAMED_ROWS = 2_000
"""Rows read from the database at a time while an index's chunks stream in."""


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk with what retrieval shows of its source. An index holds one per chunk, so it has no `__dict__`, and
    the rows of one source share their source's strings and meta (`_rows`): read-only, like the row."""

    uuid: str
    data_source_uuid: str
    position: int
    heading: str
    text: str
    source_title: str
    source_type: str
    source_meta: dict[str, Any]
    tokens: int = 0
    """The o200k count of `text`, made at ingestion (answerers report usage without counting again)."""
    source_file_name: str = ""
    """The source's file name (citations show it); like its title and meta, as of the knowledge version."""


class RetrievalRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def knowledge_version(self, chatbot_uuid: str) -> int | None:
        """The chatbot's knowledge version, None if there is no such chatbot: the one query every retrieval makes."""
        value = await self.session.scalar(select(Chatbot.knowledge_version).where(Chatbot.uuid == chatbot_uuid))
        return None if value is None else int(value)

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
        self, chatbot_uuid: str, embedder: str | None, sources: Collection[str] | None = None
    ) -> tuple[list[ChunkRow], list[Stored]]:
        """Every chunk of the chatbot, or of these of its `sources` (the index puts them in its own order), and their
        vectors in the same order: only those the current embedder made, None otherwise (other models' vectors are
        in another space). Apart, so that the index keeps them once, in its matrices, not also beside each row.

        One statement: on PostgreSQL (read committed) a statement sees one snapshot, so a source replaced meanwhile
        appears whole, old or new. The caller reads the version first: the chunks are then at least as new as the
        version they are cached under, and a newer version only costs one more rebuild.
        """
        current = case((Chunk.embedder == embedder, Chunk.embedding), else_=null()) if embedder else null()
        vector = type_coerce(current, LargeBinary)
        statement = (
            select(
                Chunk.uuid,
                Chunk.data_source_uuid,
                Chunk.position,
                Chunk.heading,
                Chunk.text,
                Chunk.tokens,
                vector.label("vector"),
                DataSource.title,
                DataSource.type,
                DataSource.meta,
                DataSource.file_name,
            )
            .join(DataSource, DataSource.uuid == Chunk.data_source_uuid)
            .where(Chunk.chatbot_uuid == chatbot_uuid)
        )
        if sources is not None:
            statement = statement.where(Chunk.data_source_uuid.in_(sorted(sources)))
        # Streamed, each vector made float16 as it comes: read whole, 100k chunks' float32 vectors held 358 MB at once
        # (besides the index being built from them), and the rows' result objects as much again.
        rows: list[ChunkRow] = []
        vectors: list[Stored] = []
        reader = _RowReader()
        result = await self.session.stream(statement)
        async for partition in result.partitions(STREAMED_ROWS):
            for row in partition:
                rows.append(reader.read(row))
                vectors.append(None if row.vector is None else held(row.vector))
        return rows, vectors

    async def passage_vectors(self, chunk_uuids: Sequence[str], embedder: str) -> dict[str, bytes]:
        """The stored passage vectors of these chunks that `embedder` produced (by chunk uuid): a few primary-key
        reads per answer, rather than every passage's vector in every process's memory."""
        if not chunk_uuids:
            return {}
        statement = select(Chunk.uuid, Chunk.passage_vectors).where(
            Chunk.uuid.in_(chunk_uuids), Chunk.embedder == embedder, Chunk.passage_vectors.is_not(None)
        )
        return {row.uuid: row.passage_vectors for row in await self.session.execute(statement)}


class _RowReader:
    """Chunk rows from a `chunks` result. Each source's values are made once and shared by its rows (and equal
    headings by theirs): at 100k chunks a copy per row held about 38 MB."""

    def __init__(self) -> None:
        self._sources: dict[str, ChunkRow] = {}
        self._headings: dict[str, str] = {}

    def read(self, row: Any) -> ChunkRow:
        source = self._sources.get(row.data_source_uuid)
        if source is None:
            source = self._sources[row.data_source_uuid] = ChunkRow(
                uuid="",
                data_source_uuid=row.data_source_uuid,
                position=0,
                heading="",
                text="",
                source_title=row.title or "",
                source_type=row.type,
                source_meta=dict(row.meta or {}),
                source_file_name=row.file_name or "",
            )
        heading = row.heading or ""
        return replace(
            source,
            uuid=row.uuid,
            position=row.position,
            heading=self._headings.setdefault(heading, heading),
            text=row.text,
            tokens=row.tokens,
        )
