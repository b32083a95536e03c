from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from botyard.db.batches import batches
from botyard.db.repository import ChatbotPartRepository, Repository
from botyard.models import Chatbot, Chunk, DataSource, SourceFile


class DataSourceRepository(ChatbotPartRepository[DataSource]):
    model = DataSource

    async def in_chatbot(self, chatbot_uuid: str, uuids: Sequence[str]) -> Sequence[DataSource]:
        """The sources among `uuids` that belong to the chatbot (others are simply absent from the result)."""
        found: list[DataSource] = []
        for batch in batches(list(uuids)):
            found += await self.all(
                select(DataSource).where(DataSource.chatbot_uuid == chatbot_uuid, DataSource.uuid.in_(batch))
            )
        return found

    noun = "Data source"

    async def owned_among(self, account_uuid: str, uuids: Sequence[str]) -> Sequence[DataSource]:
        """The sources among `uuids` that belong to one of the account's chatbots."""
        found: list[DataSource] = []
        for batch in batches(list(uuids)):
            found += await self.all(
                select(DataSource)
                .join(Chatbot, Chatbot.uuid == DataSource.chatbot_uuid)
                .where(DataSource.uuid.in_(batch), Chatbot.account_uuid == account_uuid)
            )
        return found

    async def of_chatbot(self, chatbot_uuid: str) -> Sequence[DataSource]:
        return await self.all(
            select(DataSource)
            .where(DataSource.chatbot_uuid == chatbot_uuid)
            .order_by(DataSource.created_at, DataSource.uuid)
        )

    async def by_dedupe_key(self, chatbot_uuid: str, dedupe_key: str) -> DataSource | None:
        return await self.one_or_none(
            select(DataSource).where(DataSource.chatbot_uuid == chatbot_uuid, DataSource.dedupe_key == dedupe_key)
        )

    async def add_unique(self, source: DataSource, file: SourceFile | None = None) -> bool:
        """Insert the source (and its file) unless its `dedupe_key` is taken in the chatbot, even by a concurrent
        transaction; False then, with nothing written (a savepoint keeps the outer transaction usable)."""
        try:
            async with self.session.begin_nested():
                self.session.add(source)
                await self.session.flush()
                if file is not None:
                    file.data_source_uuid = source.uuid
                    self.session.add(file)
                    await self.session.flush()
        except IntegrityError:
            return False
        return True

    async def remove(self, uuids: Sequence[str]) -> None:
        # Tag memberships, agent selections and the stored file go with the source through ON DELETE CASCADE.
        for batch in batches(list(uuids)):
            await self.session.execute(delete(DataSource).where(DataSource.uuid.in_(batch)))


class ChunkViewRepository(Repository[Chunk]):
    """A source's chunks as the owner reads them: text and figures, never the vectors."""

    model = Chunk

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
