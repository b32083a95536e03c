"""Chat sessions and messages, always reached through the chatbot that owns them (and so the account)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, select

from botyard.db.repository import Repository
from botyard.models import Chatbot, ChatSession, Message
from botyard.sources.repository import batches


class ChatSessionRepository(Repository[ChatSession]):
    model = ChatSession

    async def owned(self, account_uuid: str, session_uuid: str) -> ChatSession | None:
        return await self.one_or_none(
            select(ChatSession)
            .join(Chatbot, Chatbot.uuid == ChatSession.chatbot_uuid)
            .where(ChatSession.uuid == session_uuid, Chatbot.account_uuid == account_uuid)
        )

    async def of_chatbot(
        self, chatbot_uuid: str, created_from: datetime | None = None, created_before: datetime | None = None
    ) -> Sequence[ChatSession]:
        """The chatbot's sessions created at or after `created_from` and strictly before `created_before`."""
        statement = select(ChatSession).where(ChatSession.chatbot_uuid == chatbot_uuid)
        if created_from is not None:
            statement = statement.where(ChatSession.created_at >= created_from)
        if created_before is not None:
            statement = statement.where(ChatSession.created_at < created_before)
        return await self.all(statement.order_by(ChatSession.created_at, ChatSession.uuid))

    async def remove(self, session_uuid: str) -> None:
        # Its messages go with it through ON DELETE CASCADE.
        await self.session.execute(delete(ChatSession).where(ChatSession.uuid == session_uuid))


class MessageRepository(Repository[Message]):
    model = Message

    async def of_session(self, session_uuid: str) -> Sequence[Message]:
        return await self.all(
            select(Message).where(Message.session_uuid == session_uuid).order_by(Message.created_at, Message.uuid)
        )

    async def owned_among(self, account_uuid: str, uuids: Sequence[str]) -> Sequence[Message]:
        """The messages among `uuids` that belong to a session of one of the account's chatbots."""
        found: list[Message] = []
        for batch in batches(list(uuids)):
            found += await self.all(
                select(Message)
                .join(ChatSession, ChatSession.uuid == Message.session_uuid)
                .join(Chatbot, Chatbot.uuid == ChatSession.chatbot_uuid)
                .where(Message.uuid.in_(batch), Chatbot.account_uuid == account_uuid)
            )
        return found

    async def remove(self, uuids: Sequence[str]) -> None:
        for batch in batches(list(uuids)):
            await self.session.execute(delete(Message).where(Message.uuid.in_(batch)))
