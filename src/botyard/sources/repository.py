from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from botyard.db.repository import Repository
from botyard.models import DataSource


class DataSourceRepository(Repository[DataSource]):
    model = DataSource

    async def in_chatbot(self, chatbot_uuid: str, uuids: Sequence[str]) -> Sequence[DataSource]:
        """The sources among `uuids` that belong to the chatbot (others are simply absent from the result)."""
        if not uuids:
            return []
        return await self.all(
            select(DataSource).where(DataSource.chatbot_uuid == chatbot_uuid, DataSource.uuid.in_(list(uuids)))
        )
