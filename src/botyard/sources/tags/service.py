"""Source tag rules: a tag groups data sources of its own chatbot only."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso, utcnow
from botyard.models import SourceTag
from botyard.sources.service import require_in_chatbot
from botyard.sources.tags.repository import SourceTagRepository
from botyard.sources.tags.schemas import SourceTag as SourceTagOut
from botyard.sources.tags.schemas import TagCreate, TagUpdate


async def get_owned(db: AsyncSession, account_uuid: str, tag_uuid: str) -> SourceTag:
    """The account's tag, or the 404 a missing tag gets (another account's tag answers the same)."""
    return await SourceTagRepository(db).get_owned(account_uuid, tag_uuid)


async def create(db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: TagCreate) -> SourceTag:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    # Checked before anything is written: a source of another chatbot or account is a 404 and no tag is made.
    members = await require_in_chatbot(db, chatbot.uuid, body.data_source_uuids or [])
    repository = SourceTagRepository(db)
    tag = await repository.add(SourceTag(chatbot_uuid=chatbot.uuid, name=body.name, color=body.color))
    await repository.set_members(tag.uuid, members)
    return tag


async def update(db: AsyncSession, account_uuid: str, tag_uuid: str, body: TagUpdate) -> SourceTag:
    """Partial update; `data_source_uuids`, when given, replaces the tag's sources (order kept, duplicates once)."""
    tag = await get_owned(db, account_uuid, tag_uuid)
    values = body.given()
    members = values.pop("data_source_uuids", None)
    repository = SourceTagRepository(db)
    if members is not None:
        await repository.set_members(tag.uuid, await require_in_chatbot(db, tag.chatbot_uuid, members))
    if values or members is not None:
        # Membership lives in its own table, so the tag row's timestamp is moved by hand.
        values["modified_at"] = utcnow()
    return await repository.update(tag, values)


async def list_of_chatbot(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Sequence[SourceTag]:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return await SourceTagRepository(db).of_chatbot(chatbot.uuid)


async def delete(db: AsyncSession, account_uuid: str, tag_uuid: str) -> None:
    tag = await get_owned(db, account_uuid, tag_uuid)
    await SourceTagRepository(db).remove(tag)


async def to_wire_many(db: AsyncSession, tags: Sequence[SourceTag]) -> list[SourceTagOut]:
    """The wire form of tags, their sources read in one query."""
    members = await SourceTagRepository(db).members([tag.uuid for tag in tags])
    return [
        {
            "uuid": tag.uuid,
            "name": tag.name,
            "color": tag.color,
            "data_source_uuids": members.get(tag.uuid, []),
            "created_at": iso(tag.created_at),
            "modified_at": iso(tag.modified_at),
        }
        for tag in tags
    ]


async def to_wire(db: AsyncSession, tag: SourceTag) -> SourceTagOut:
    return (await to_wire_many(db, [tag]))[0]
