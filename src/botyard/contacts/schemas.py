"""The wire shapes of contacts: what the management API reads and takes (`router.py`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StringConstraints, field_validator
from typing_extensions import TypedDict

from botyard.contacts.service import MAX_ATTRIBUTE_KEY, MAX_ATTRIBUTE_VALUE, MAX_ATTRIBUTES, MAX_NAME
from botyard.schemas import RequestModel, Uuid

Name = Annotated[str, StringConstraints(max_length=MAX_NAME, strip_whitespace=True)]
Email = Annotated[str, StringConstraints(max_length=320, strip_whitespace=True)]
Phone = Annotated[str, StringConstraints(max_length=32, strip_whitespace=True)]
AttributeKey = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ATTRIBUTE_KEY, strip_whitespace=True)]
AttributeValue = Annotated[str, StringConstraints(max_length=MAX_ATTRIBUTE_VALUE)]
Attributes = Annotated[dict[AttributeKey, AttributeValue], Field(max_length=MAX_ATTRIBUTES)]
"""What a site or a channel passed in (company, plan, locale), short strings by name."""


class ContactUpdate(RequestModel):
    """What the team edits of a contact; a field not given stays as it is."""

    name: Name | None = None
    email: Email | None = Field(default=None, description="An address, or empty to clear it.")
    phone: Phone | None = Field(default=None, description="In international form (stored in E.164), or empty.")
    note: Annotated[str, StringConstraints(max_length=10_000)] | None = Field(
        default=None, description="What the team writes of them; never shown to the customer."
    )
    attributes: Attributes | None = Field(default=None, description="Replaces the attributes whole.")

    @field_validator("email")
    @classmethod
    def _an_address(cls, value: str | None) -> str | None:
        if value and "@" not in value:
            raise ValueError("not an email address")
        return value.lower() if value else value


class ContactMerge(RequestModel):
    contact_uuid: Uuid = Field(description="The contact that joins this one, and is then deleted.")


class Identity(TypedDict):
    kind: str
    """`email`, `phone`, `telegram`, `slack`, `messenger`, `instagram`, `webhook`, `visitor` (`IdentityKind`)."""
    value: str
    created_at: str


class Contact(TypedDict):
    uuid: str
    name: str
    email: str
    phone: str
    note: str
    attributes: dict[str, str]
    last_seen_at: str | None
    created_at: str
    modified_at: str


class ContactListItem(Contact):
    identities: list[Identity]
    channels: list[str]
    """Where they wrote: each channel type once, `widget` for the widget or the API."""
    conversation_count: int


class ContactList(TypedDict):
    total: int
    """How many contacts match the search, over every page."""
    contacts: list[ContactListItem]


class Conversation(TypedDict):
    session_uuid: str
    chatbot_uuid: str
    chatbot_name: str
    channel: str
    """The channel's type (`telegram`, `whatsapp`, ...), or `widget` for the widget or the API."""
    channel_uuid: str | None
    created_at: str
    last_activity_at: str
    status: str
    """`open`, `pending`, `snoozed`, `resolved` (`ConversationStatus`)."""
    visitor_page: str
    message_count: int
    preview: str
    """The start of its last message."""


class ContactDetail(Contact):
    identities: list[Identity]
    conversations: list[Conversation]
    """Every conversation they had on any channel and chatbot of the account, latest activity first."""


class ExportedMessage(TypedDict):
    uuid: str
    created_at: str
    query: str
    """What the customer wrote (empty on an operator's reply or an announcement)."""
    response: str
    meta: dict[str, Any]


class ExportedConversation(Conversation):
    messages: list[ExportedMessage]


class ContactExport(TypedDict):
    exported_at: str
    contact: Contact
    identities: list[Identity]
    conversations: list[ExportedConversation]


class ContactDeleted(TypedDict):
    success: bool
    conversations_deleted: int
