"""Data sources: a chatbot's knowledge, one row each (a Q&A pair, a page, a file)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from botyard.db.batches import batches
from botyard.db.repository import ChatbotPartRepository
from botyard.models import Chatbot, DataSource, SourceFile, SourceType
from botyard.sources.repository.chunks import bump_version


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

    async def remove(self, sources: Iterable[DataSource]) -> None:
        """Delete the sources: their chunks, tag memberships, agent selections and stored files go with them through
        ON DELETE CASCADE, and each chatbot whose chunks went gets a new knowledge version."""
        by_chatbot: dict[str, list[str]] = {}
        for source in sources:
            by_chatbot.setdefault(source.chatbot_uuid, []).append(source.uuid)
        for batch in batches([uuid for uuids in by_chatbot.values() for uuid in uuids]):
            await self.session.execute(delete(DataSource).where(DataSource.uuid.in_(batch)))
        for chatbot_uuid in sorted(by_chatbot):
            await bump_version(self.session, chatbot_uuid, by_chatbot[chatbot_uuid])

    async def retitle(self, source: DataSource, title: str) -> DataSource:
        """A new title; it is searched and shown with every hit, so the chatbot's search indexes reload the source."""
        if title != source.title:
            await bump_version(self.session, source.chatbot_uuid, [source.uuid])
        return await self.update(source, {"title": title})

    async def fetched_pages(self, chatbot_uuid: str) -> Sequence[DataSource]:
        """The chatbot's web pages that were fetched at least once (what a re-sync checks again)."""
        return await self.all(
            select(DataSource)
            .where(
                DataSource.chatbot_uuid == chatbot_uuid,
                DataSource.type == SourceType.LINK,
                DataSource.content_hash.is_not(None),
            )
            .order_by(DataSource.created_at, DataSource.uuid)
        )
