from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, delete, func, select, update

from botyard.db.repository import Repository
from botyard.models import Chatbot, Chunk


class ChatbotRepository(Repository[Chatbot]):
    model = Chatbot

    noun = "Chatbot"

    def owned_statement(self, account_uuid: str, chatbot_uuid: str) -> Select[Any]:
        return select(Chatbot).where(Chatbot.uuid == chatbot_uuid, Chatbot.account_uuid == account_uuid)

    async def by_uuid(self, chatbot_uuid: str) -> Chatbot | None:
        """Any account's chatbot: only for what is public by the chatbot's own visibility (the widget)."""
        return await self.session.get(Chatbot, chatbot_uuid)

    async def of_account(self, account_uuid: str) -> Sequence[Chatbot]:
        return await self.all(
            select(Chatbot).where(Chatbot.account_uuid == account_uuid).order_by(Chatbot.created_at, Chatbot.uuid)
        )

    async def next_knowledge_version(self, chatbot_uuid: str) -> int | None:
        """Bump the chatbot's knowledge version and give the new one (None: no such chatbot). The update takes the
        chatbot's row lock, which orders concurrent bumps until the transaction ends."""
        return await self.session.scalar(
            update(Chatbot)
            .where(Chatbot.uuid == chatbot_uuid)
            # modified_at is named so that its on-update default does not fire: knowledge is not a setting.
            .values(knowledge_version=Chatbot.knowledge_version + 1, modified_at=Chatbot.modified_at)
            .returning(Chatbot.knowledge_version)
            .execution_options(synchronize_session=False)
        )

    async def chunk_sample(self, chatbot_uuid: str, count: int, characters: int) -> list[tuple[str, int]]:
        """The first `characters` of up to `count` of the chatbot's chunks, with each one's size in tokens. Chunk
        uuids are random, so the first ones by uuid are a sample of every source alike, and the same sample while
        the knowledge stays the same."""
        statement = (
            select(func.substr(Chunk.text, 1, characters), Chunk.tokens)
            .where(Chunk.chatbot_uuid == chatbot_uuid)
            .order_by(Chunk.uuid)
            .limit(count)
        )
        return [(str(text), int(tokens)) for text, tokens in await self.session.execute(statement)]

    async def remove(self, chatbot: Chatbot) -> None:
        # Everything the chatbot owns goes with it through ON DELETE CASCADE, in this one statement.
        await self.session.execute(delete(Chatbot).where(Chatbot.uuid == chatbot.uuid))
