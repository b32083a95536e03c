from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, NotRequired

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


class MemberRemoval(RequestModel):
    revoke_keys: bool = False
    """Also revoke the API keys the member made (they outlive the member otherwise: a program may use them)."""


class MemberRemoved(TypedDict):
    success: bool
    revoked_keys: NotRequired[list[str]]
    """With `revoke_keys`: the prefixes of the keys the member had made that the removal revoked."""


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
    made_by: str | None
    """The uuid of the person who made the key; null for a key made by the command line, the setup page or
    another key."""
    made_by_email: str | None
    """That person's email while they are a member; null when nobody made it from the dashboard, or when its maker
    was removed from the account (the key outlived them)."""


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


def key_view(record: ApiKey, makers: Mapping[str, str]) -> ApiKeyDetails:
    """The key as listed; `makers`: the email of each member by uuid."""
    maker = record.made_by_user_uuid
    return {
        "name": record.name,
        "prefix": record.prefix,
        "created_at": iso(record.created_at),
        "last_used_at": iso(record.last_used_at) if record.last_used_at else None,
        "revoked_at": iso(record.revoked_at) if record.revoked_at else None,
        "made_by": maker,
        "made_by_email": makers.get(maker) if maker is not None else None,
    }
