"""A source's stored bytes."""

from __future__ import annotations

from sqlalchemy import delete, select

from botyard.db.repository import Repository
from botyard.models import SourceFile


class SourceFileRepository(Repository[SourceFile]):
    """A source's stored bytes: an upload, or a page a crawl or a re-sync fetched (dropped once its chunks are
    stored, so that a re-scrape fetches the page again)."""

    model = SourceFile

    async def remove(self, source_uuid: str) -> None:
        await self.session.execute(delete(SourceFile).where(SourceFile.data_source_uuid == source_uuid))

    async def of_source(self, source_uuid: str) -> SourceFile | None:
        return await self.one_or_none(select(SourceFile).where(SourceFile.data_source_uuid == source_uuid))
