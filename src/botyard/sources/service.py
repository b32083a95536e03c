"""Data source rules."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.errors import not_found
from botyard.sources.repository import DataSourceRepository


async def require_in_chatbot(db: AsyncSession, chatbot_uuid: str, uuids: Sequence[str]) -> list[str]:
    """`uuids` de-duplicated in order, once each is known to be a source of this chatbot; otherwise the 404 a
    missing source gets (a source of another chatbot or account is indistinguishable from a missing one)."""
    wanted = list(dict.fromkeys(uuids))
    found = {source.uuid for source in await DataSourceRepository(db).in_chatbot(chatbot_uuid, wanted)}
    if len(found) != len(wanted):
        raise not_found("Data source")
    return wanted
