"""Chunk storage. A source's chunks are replaced as a whole, and every change bumps its chatbot's knowledge
version (the key of the in-process search caches)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func, select, update

from botyard.db.repository import Repository
from botyard.models import Chatbot, Chunk, DataSource


class ChunkRepository(Repository[Chunk]):
    model = Chunk

    async def replace(self, source: DataSource, chunks: Sequence[Chunk]) -> None:
        await self.session.execute(delete(Chunk).where(Chunk.data_source_uuid == source.uuid))
        self.session.add_all(chunks)
        await self.session.flush()
        await self.bump_version(source.chatbot_uuid)

    async def bump_version(self, chatbot_uuid: str) -> None:
        await self.session.execute(
            update(Chatbot)
            .where(Chatbot.uuid == chatbot_uuid)
            # modified_at is named so that its on-update default does not fire: knowledge is not a setting.
            .values(knowledge_version=Chatbot.knowledge_version + 1, modified_at=Chatbot.modified_at)
            .execution_options(synchronize_session=False)
        )

    async def count_of(self, source_uuid: str) -> int:
        statement = select(func.count()).select_from(Chunk).where(Chunk.data_source_uuid == source_uuid)
        return int(await self.session.scalar(statement) or 0)

    async def of_source(self, source_uuid: str) -> Sequence[Chunk]:
        return await self.all(select(Chunk).where(Chunk.data_source_uuid == source_uuid).order_by(Chunk.position))
