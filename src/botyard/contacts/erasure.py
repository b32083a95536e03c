"""A person's rights over what the account holds of them: access (`export`: the contact, its identities and every
conversation with its messages, as one JSON document) and erasure (`erase`: the contact and its conversations, with
their messages and everything else of theirs, gone in the caller's transaction)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.contact_sessions import service as contact_sessions
from botyard.chat.contact_sessions.service import SessionTrace
from botyard.contacts import service
from botyard.contacts.repository import ContactRepository
from botyard.contacts.schemas import ContactExport, ExportedConversation, ExportedMessage
from botyard.contacts.views import contact_to_wire, conversation_to_wire, identities_to_wire
from botyard.db.base import iso
from botyard.models import Message


async def export(db: AsyncSession, account_uuid: str, contact_uuid: str, now: datetime) -> ContactExport:
    """Everything the account holds of the contact (404 for another account's)."""
    contact = await service.get_owned(db, account_uuid, contact_uuid)
    identities = await service.identities_of(db, [contact.uuid])
    conversations = (await contact_sessions.of_contacts(db, [contact.uuid]))[contact.uuid]
    messages = await contact_sessions.messages_of(db, [one.session_uuid for one in conversations])
    exported: list[ExportedConversation] = [
        {**conversation_to_wire(one), "messages": [_message(row) for row in messages[one.session_uuid]]}
        for one in conversations
    ]
    return {
        "exported_at": iso(now),
        "contact": contact_to_wire(contact),
        "identities": identities_to_wire(identities[contact.uuid]),
        "conversations": exported,
    }


def _message(message: Message) -> ExportedMessage:
    return {
        "uuid": message.uuid,
        "created_at": iso(message.created_at),
        "query": message.query,
        "response": message.response,
        "meta": dict(message.meta or {}),
    }


Eraser = Callable[[AsyncSession, Sequence[SessionTrace]], Awaitable[None]]
"""What a package above this one keeps of a conversation outside `chat/` and deletes with it, in the caller's
transaction: the channels' deliveries and replies, which hold the customer's words (`main` hands them over, as
`contacts` may not import the packages above it)."""


async def erase(db: AsyncSession, account_uuid: str, contact_uuid: str, erasers: Sequence[Eraser] = ()) -> int:
    """Delete the contact (404 for another account's), its identities and its conversations with their messages,
    and what each of `erasers` keeps of those conversations; how many conversations went."""
    contact = await service.get_owned(db, account_uuid, contact_uuid)
    traces = await contact_sessions.traces_of(db, contact.uuid)
    for eraser in erasers:
        await eraser(db, traces)
    deleted = await contact_sessions.delete_of(db, contact.uuid)
    await ContactRepository(db).remove(contact.uuid)
    return deleted
