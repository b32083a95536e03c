"""The audit log's shapes on the wire."""

from __future__ import annotations

from typing_extensions import TypedDict

from botyard.db.base import iso
from botyard.models import AuditEvent


class AuditActor(TypedDict):
    user_uuid: str | None
    """The person; null for an API key."""
    email: str
    key_prefix: str
    """The API key's prefix (never the key); empty for a person."""
    name: str
    role: str


class AuditEventOut(TypedDict):
    uuid: str
    at: str
    actor: AuditActor
    action: str
    object_type: str
    object_uuid: str
    summary: str
    address: str
    user_agent: str


class AuditPage(TypedDict):
    events: list[AuditEventOut]
    offset: int
    limit: int
    more: bool
    """Whether older events follow (ask again with `offset` + `limit`)."""


def event_view(event: AuditEvent) -> AuditEventOut:
    return {
        "uuid": event.uuid,
        "at": iso(event.at),
        "actor": {
            "user_uuid": event.actor_user_uuid,
            "email": event.actor_email,
            "key_prefix": event.actor_key_prefix,
            "name": event.actor_name,
            "role": event.role,
        },
        "action": event.action,
        "object_type": event.object_type,
        "object_uuid": event.object_uuid,
        "summary": event.summary,
        "address": event.address,
        "user_agent": event.user_agent,
    }
