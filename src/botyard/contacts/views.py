"""What the management API shows of contacts: a page of the list, one contact with every conversation, each as its
wire shape (`schemas.py`). Reads only."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.contact_sessions import service as contact_sessions
from botyard.chat.contact_sessions.service import ContactConversation
from botyard.contacts import service
from botyard.contacts.schemas import Contact as ContactOut
from botyard.contacts.schemas import ContactDetail, ContactList, ContactListItem, Conversation, Identity
from botyard.db.base import iso
from botyard.models import Contact, ContactIdentity


def contact_to_wire(contact: Contact) -> ContactOut:
    return {
        "uuid": contact.uuid,
        "name": contact.name,
        "email": contact.email,
        "phone": contact.phone,
        "note": contact.note,
        "attributes": {str(key): str(value) for key, value in (contact.attributes or {}).items()},
        "last_seen_at": iso(contact.last_seen_at) if contact.last_seen_at else None,
        "created_at": iso(contact.created_at),
        "modified_at": iso(contact.modified_at),
    }


def identities_to_wire(identities: Sequence[ContactIdentity]) -> list[Identity]:
    return [
        {"kind": identity.kind, "value": identity.value, "created_at": iso(identity.created_at)}
        for identity in identities
    ]


def conversation_to_wire(conversation: ContactConversation) -> Conversation:
    return {
        "session_uuid": conversation.session_uuid,
        "chatbot_uuid": conversation.chatbot_uuid,
        "chatbot_name": conversation.chatbot_name,
        "channel": conversation.channel_type or contact_sessions.WIDGET,
        "channel_uuid": conversation.channel_uuid,
        "created_at": iso(conversation.created_at),
        "last_activity_at": iso(conversation.modified_at),
        "status": conversation.status,
        "visitor_page": conversation.visitor_page,
        "message_count": conversation.message_count,
        "preview": conversation.preview,
    }


async def page(db: AsyncSession, account_uuid: str, q: str, limit: int, offset: int) -> ContactList:
    """A page of the account's contacts matching `q`, latest seen first, each with its identities and channels."""
    total, contacts = await service.search(db, account_uuid, q, limit, offset)
    uuids = [contact.uuid for contact in contacts]
    identities = await service.identities_of(db, uuids)
    channels = await contact_sessions.channel_types(db, uuids)
    counts = await contact_sessions.counts(db, uuids)
    items: list[ContactListItem] = [
        {
            **contact_to_wire(contact),
            "identities": identities_to_wire(identities[contact.uuid]),
            "channels": channels.get(contact.uuid, []),
            "conversation_count": counts.get(contact.uuid, 0),
        }
        for contact in contacts
    ]
    return {"total": total, "contacts": items}


async def detail(db: AsyncSession, account_uuid: str, contact_uuid: str) -> ContactDetail:
    """The account's contact with its identities and every conversation it had (404 for another account's)."""
    contact = await service.get_owned(db, account_uuid, contact_uuid)
    return await detail_of(db, contact)


async def detail_of(db: AsyncSession, contact: Contact) -> ContactDetail:
    identities = await service.identities_of(db, [contact.uuid])
    conversations = await contact_sessions.of_contacts(db, [contact.uuid])
    return {
        **contact_to_wire(contact),
        "identities": identities_to_wire(identities[contact.uuid]),
        "conversations": [conversation_to_wire(one) for one in conversations[contact.uuid]],
    }
