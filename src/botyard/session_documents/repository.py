"""SQL for session documents and the messages that used them."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Message, MessageDocument, SessionDocument


class SessionDocumentRepository:
    def __init__(self, db: AsyncSession) -> None:
        self.db = db

    async def add(self, document: SessionDocument) -> SessionDocument:
        self.db.add(document)
        await self.db.flush()
        return document

    async def owned_among(self, account_uuid: str, uuids: Sequence[str]) -> dict[str, SessionDocument]:
        """The account's documents among `uuids`, by uuid (another account's are simply absent)."""
        if not uuids:
            return {}
        statement = select(SessionDocument).where(
            SessionDocument.account_uuid == account_uuid, SessionDocument.uuid.in_(list(uuids))
        )
        return {document.uuid: document for document in await self.db.scalars(statement)}

    async def of_session(self, session_uuid: str) -> list[SessionDocument]:
        """The documents the session's messages used, in the order they joined the conversation."""
        statement = (
            select(SessionDocument)
            .join(MessageDocument, MessageDocument.document_uuid == SessionDocument.uuid)
            .join(Message, Message.uuid == MessageDocument.message_uuid)
            .where(Message.session_uuid == session_uuid)
            .order_by(Message.created_at, MessageDocument.position)
        )
        found = await self.db.scalars(statement)
        return list({document.uuid: document for document in found}.values())

    async def used_by(self, message_uuids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """Each message's documents as (uuid, name), in the order they were given to the model."""
        if not message_uuids:
            return {}
        statement = (
            select(MessageDocument.message_uuid, SessionDocument.uuid, SessionDocument.name)
            .join(SessionDocument, SessionDocument.uuid == MessageDocument.document_uuid)
            .where(MessageDocument.message_uuid.in_(list(message_uuids)))
            .order_by(MessageDocument.message_uuid, MessageDocument.position)
        )
        used: dict[str, list[tuple[str, str]]] = {}
        for message_uuid, uuid, name in await self.db.execute(statement):
            used.setdefault(message_uuid, []).append((uuid, name))
        return used

    async def link(self, message_uuid: str, document_uuids: Sequence[str]) -> None:
        """Record that the message used these documents, in this order."""
        for position, uuid in enumerate(dict.fromkeys(document_uuids)):
            self.db.add(MessageDocument(message_uuid=message_uuid, document_uuid=uuid, position=position))
        await self.db.flush()
