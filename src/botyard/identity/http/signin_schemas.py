from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints
from typing_extensions import TypedDict

from botyard.identity.http.member_schemas import Member
from botyard.schemas import RequestModel

Email = Annotated[str, StringConstraints(min_length=3, max_length=320)]
Password = Annotated[str, StringConstraints(min_length=1, max_length=1000)]
LinkToken = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class SignInBody(RequestModel):
    email: Email
    password: Password


class LinkBody(RequestModel):
    token: LinkToken


class AcceptInvitation(RequestModel):
    token: LinkToken
    name: Annotated[str, StringConstraints(max_length=200, strip_whitespace=True)] = ""
    password: Password


class ResetPassword(RequestModel):
    token: LinkToken
    password: Password


class Me(TypedDict):
    """Who signs the request: a person (`user`) or an API key (`user` null, acting as an admin)."""

    account_uuid: str
    role: str
    permissions: list[str]
    user: Member | None


class Availability(RequestModel):
    away: bool
    """True: not there now (a visitor who asks for a person is offered the contact form when everyone who takes
    conversations is away); false: there."""


class InvitationPreview(TypedDict):
    email: str
    role: str
    expires_at: str


class SignedOut(TypedDict):
    ended: int
