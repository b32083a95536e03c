"""The SQL of retrieval's own tables: the search index snapshots shared through the database (`shared`). What it
reads of the knowledge is `sources`' (`knowledge`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import IndexSnapshot, IndexSnapshotPiece


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

    async def claim(self, chatbot_uuid: str, code_key: str, version: int, since: datetime) -> bool:
        """An unsigned row for the chatbot at `version` (a claim on its build), unless one was made since `since`."""
        statement = select(IndexSnapshot.uuid).where(
            IndexSnapshot.chatbot_uuid == chatbot_uuid,
            IndexSnapshot.code_key == code_key,
            IndexSnapshot.version == version,
            IndexSnapshot.signature.is_(None),
            IndexSnapshot.created_at >= since,
        )
        if (await self.session.execute(statement.limit(1))).first() is not None:
            return False
        await self.begin(chatbot_uuid, code_key, version)
        return True

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
