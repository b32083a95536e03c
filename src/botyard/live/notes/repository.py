"""The notes of conversations (`conversation_note`, live's table), each reached through its session's chatbot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, select

from botyard.db.repository import Repository
from botyard.models import Chatbot, ChatSession, ConversationNote


class NoteRepository(Repository[ConversationNote]):
    model = ConversationNote

    noun = "Note"

    def owned_statement(self, account_uuid: str, uuid: str) -> Select[Any]:
        return (
            select(ConversationNote)
            .join(ChatSession, ChatSession.uuid == ConversationNote.session_uuid)
            .join(Chatbot, Chatbot.uuid == ChatSession.chatbot_uuid)
            .where(ConversationNote.uuid == uuid, Chatbot.account_uuid == account_uuid)
        )

    async def of_session(self, session_uuid: str) -> Sequence[ConversationNote]:
        """The session's notes, oldest first."""
        statement = select(ConversationNote).where(ConversationNote.session_uuid == session_uuid)
        return await self.all(statement.order_by(ConversationNote.created_at, ConversationNote.uuid))
