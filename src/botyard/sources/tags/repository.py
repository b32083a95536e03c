from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import delete, insert, select

from botyard.db.batches import batches
from botyard.db.repository import ChatbotPartRepository
from botyard.models import SourceTag, SourceTagMember


class SourceTagRepository(ChatbotPartRepository[SourceTag]):
    model = SourceTag

    noun = "Source tag"

    async def of_chatbot(self, chatbot_uuid: str) -> Sequence[SourceTag]:
        return await self.all(
            select(SourceTag)
            .where(SourceTag.chatbot_uuid == chatbot_uuid)
            .order_by(SourceTag.created_at, SourceTag.uuid)
        )

    async def members(self, tag_uuids: Sequence[str]) -> dict[str, list[str]]:
        """Each tag's data source uuids, in the order they were given."""
        members: dict[str, list[str]] = defaultdict(list)
        for batch in batches(list(tag_uuids)):
            rows = await self.session.execute(
                select(SourceTagMember.tag_uuid, SourceTagMember.data_source_uuid)
                .where(SourceTagMember.tag_uuid.in_(batch))
                .order_by(SourceTagMember.tag_uuid, SourceTagMember.position)
            )
            for tag_uuid, source_uuid in rows:
                members[tag_uuid].append(source_uuid)
        return members

    async def set_members(self, tag_uuid: str, source_uuids: Sequence[str]) -> None:
        await self.session.execute(delete(SourceTagMember).where(SourceTagMember.tag_uuid == tag_uuid))
        rows = [
            {"tag_uuid": tag_uuid, "data_source_uuid": source_uuid, "position": position}
            for position, source_uuid in enumerate(source_uuids)
        ]
        for batch in batches(rows):
            await self.session.execute(insert(SourceTagMember), batch)

    async def remove(self, tag: SourceTag) -> None:
        # Memberships go with the tag through ON DELETE CASCADE.
        await self.session.execute(delete(SourceTag).where(SourceTag.uuid == tag.uuid))
