"""The SQL of retrieval: the knowledge version (read on every query), the rows an index is built from, the
passage vectors of the few chunks an answer quotes from, and the snapshots shared through the database (`shared`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import LargeBinary, and_, case, delete, func, null, or_, select, type_coerce, update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Chatbot, Chunk, DataSource, IndexSnapshot, IndexSnapshotPiece, KnowledgeChange
from botyard.retrieval.dense import Stored, held_all

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
    terms: str | None = None
    """The terms kept at ingestion (`stored_terms`), held only by the rows read for a build or an update."""
    terms_tag: str | None = None


class RetrievalRepository:
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
        self, chatbot_uuid: str, embedder: str | None, sources: Collection[str] | None = None
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
        known = await self._sources(chatbot_uuid, sources)
        current = case((Chunk.embedder == embedder, Chunk.embedding), else_=null()) if embedder else null()
        vector = type_coerce(current, LargeBinary)
        chunk = (Chunk.uuid, Chunk.data_source_uuid, Chunk.position, Chunk.heading, Chunk.text, Chunk.tokens)
        analysed = (Chunk.terms, Chunk.terms_tag)
        statement = select(*chunk, *analysed, vector.label("vector")).where(Chunk.chatbot_uuid == chatbot_uuid)
        if sources is not None:
            statement = statement.where(Chunk.data_source_uuid.in_(sorted(sources)))
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

    async def _sources(self, chatbot_uuid: str, sources: Collection[str] | None) -> dict[str, ChunkRow]:
        """What rows show of each of the chatbot's sources (or of these `sources`), as a row without a chunk of its
        own: its strings and meta are then shared by its rows (at 100k chunks a copy per row held about 38 MB)."""
        statement = select(DataSource.uuid, DataSource.title, DataSource.type, DataSource.meta, DataSource.file_name)
        statement = statement.where(DataSource.chatbot_uuid == chatbot_uuid)
        if sources is not None:
            statement = statement.where(DataSource.uuid.in_(sorted(sources)))
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


class SharedSnapshotRepository:
    """The snapshots shared through the database (`IndexSnapshot`): complete ones carry their signature."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def newest(self, chatbot_uuid: str, code_key: str, version: int) -> IndexSnapshot | None:
        """The newest complete snapshot of the chatbot made by this code at or before `version`."""
        statement = (
            select(IndexSnapshot)
            .where(
                IndexSnapshot.chatbot_uuid == chatbot_uuid,
                IndexSnapshot.code_key == code_key,
                IndexSnapshot.version <= version,
                IndexSnapshot.signature.is_not(None),
            )
            .order_by(IndexSnapshot.version.desc())
            .limit(1)
        )
        return (await self.session.execute(statement)).scalar_one_or_none()

    async def begin(self, chatbot_uuid: str, code_key: str, version: int) -> str:
        snapshot = IndexSnapshot(chatbot_uuid=chatbot_uuid, code_key=code_key, version=version, size=0)
        self.session.add(snapshot)
        await self.session.flush()
        return snapshot.uuid

    async def add_piece(self, snapshot_uuid: str, seq: int, data: bytes) -> None:
        self.session.add(IndexSnapshotPiece(snapshot_uuid=snapshot_uuid, seq=seq, data=data))
        await self.session.flush()

    async def finish(self, snapshot_uuid: str, size: int, signature: str) -> None:
        statement = update(IndexSnapshot).where(IndexSnapshot.uuid == snapshot_uuid)
        await self.session.execute(statement.values(size=size, signature=signature))

    async def prune(self, kept: str, chatbot_uuid: str, code_key: str, version: int, before: datetime) -> None:
        """Remove the chatbot's snapshots that `kept` replaces: this code's older ones, and other code's or
        unfinished ones made before `before` (a machine still on other code may want its own for a while)."""
        older = and_(IndexSnapshot.code_key == code_key, IndexSnapshot.version <= version)
        stale = or_(IndexSnapshot.code_key != code_key, IndexSnapshot.signature.is_(None))
        statement = delete(IndexSnapshot).where(
            IndexSnapshot.chatbot_uuid == chatbot_uuid,
            IndexSnapshot.uuid != kept,
            or_(older, and_(stale, IndexSnapshot.created_at < before)),
        )
        await self.session.execute(statement)

    async def drop(self, snapshot_uuid: str) -> None:
        await self.session.execute(delete(IndexSnapshot).where(IndexSnapshot.uuid == snapshot_uuid))

    async def pieces(self, snapshot_uuid: str) -> AsyncIterator[bytes]:
        """The snapshot's bytes in order, a piece at a time (streamed: never the whole snapshot in memory)."""
        statement = select(IndexSnapshotPiece.data).where(IndexSnapshotPiece.snapshot_uuid == snapshot_uuid)
        connection = await self.session.connection()
        result = await connection.stream(statement.order_by(IndexSnapshotPiece.seq))
        async for partition in result.partitions(1):
            for row in partition:
                yield row.data
