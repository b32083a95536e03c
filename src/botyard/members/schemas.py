from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints
from typing_extensions import TypedDict

from botyard.db.base import iso
from botyard.models import ApiKey, Invitation, Role, User
from botyard.schemas import RequestModel


class Member(TypedDict):
    uuid: str
    email: str
    name: str
    role: str
    created_at: str
    away: bool
    """Said by a person who takes conversations: not there now (`POST /api/v1/auth/availability`)."""


class RoleChange(RequestModel):
    role: Role


class InvitationCreate(RequestModel):
    email: Annotated[str, StringConstraints(min_length=3, max_length=320)]
    role: Role


class InvitationInfo(TypedDict):
    uuid: str
    email: str
    role: str
    created_at: str
    expires_at: str


class InvitationCreated(InvitationInfo):
    link: str
    """The invitation link, shown only in this reply: pass it on to the person."""


class ResetLink(TypedDict):
    email: str
    link: str
    expires_at: str


class ApiKeyCreate(RequestModel):
    name: Annotated[str, StringConstraints(min_length=1, max_length=100, strip_whitespace=True)]


class ApiKeyDetails(TypedDict):
    name: str
    prefix: str
    created_at: str
    last_used_at: str | None
    revoked_at: str | None


class ApiKeyIssued(ApiKeyDetails):
    key: str


def member_view(user: User) -> Member:
    return {
        "uuid": user.uuid,
        "email": user.email,
        "name": user.name,
        "role": user.role,
        "created_at": iso(user.created_at),
        "away": user.away,
    }


def invitation_view(invitation: Invitation) -> InvitationInfo:
    return {
        "uuid": invitation.uuid,
        "email": invitation.email,
        "role": invitation.role,
        "created_at": iso(invitation.created_at),
        "expires_at": iso(invitation.expires_at),
    }


def key_view(record: ApiKey) -> ApiKeyDetails:
    return {
        "name": record.name,
        "prefix": record.prefix,
        "created_at": iso(record.created_at),
        "last_used_at": iso(record.last_used_at) if record.last_used_at else None,
        "revoked_at": iso(record.revoked_at) if record.revoked_at else None,
    }
