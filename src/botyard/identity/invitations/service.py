"""Invitations by link: an owner or admin invites an email with a role; the link (`/dashboard#invite=<token>`)
lets that person choose a name and a password and signs them in. A link works once and for `LIFETIME`; only its
token's hash is stored, so it is shown once, to the inviter (who passes it on), and never again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.errors import AppError, ErrorCode
from botyard.identity.invitations.repository import InvitationRepository
from botyard.identity.principal import Principal
from botyard.identity.tokens import hash_token, new_token
from botyard.identity.users import members
from botyard.models import Invitation, Role, User

LIFETIME = timedelta(days=7)


@dataclass(frozen=True)
class IssuedInvitation:
    invitation: Invitation
    token: str


def link_invalid(what: str) -> AppError:
    return AppError(ErrorCode.LINK_INVALID, f"This {what} link is not valid any more: ask for a new one")


class Claimed(AppError):
    """The invitation was accepted by another request meanwhile: 410 `link_invalid`, like any used link."""

    def __init__(self) -> None:
        super().__init__(ErrorCode.LINK_INVALID, "This invitation link is not valid any more: ask for a new one")


async def invite(db: AsyncSession, actor: Principal, email: str, role: Role, now: datetime) -> IssuedInvitation:
    """A new invitation (replacing the account's open ones for this email)."""
    members.check_may_grant(actor, role)
    email = await members.check_email_free(db, email)
    repository = InvitationRepository(db)
    await repository.withdraw_for(actor.account_uuid, email)
    token = new_token()
    invitation = Invitation(
        account_uuid=actor.account_uuid,
        email=email,
        role=role.value,
        token_hash=hash_token(token),
        created_at=now,
        expires_at=now + LIFETIME,
    )
    await repository.add(invitation)
    return IssuedInvitation(invitation=invitation, token=token)


async def pending(db: AsyncSession, account_uuid: str, now: datetime) -> Sequence[Invitation]:
    return await InvitationRepository(db).pending(account_uuid, now)


async def withdraw(db: AsyncSession, account_uuid: str, uuid: str) -> None:
    repository = InvitationRepository(db)
    invitation = await repository.get_owned(account_uuid, uuid)
    if invitation.accepted_at is not None:
        raise AppError(ErrorCode.NOT_FOUND, "Invitation not found")
    await repository.delete(invitation)


async def open_invitation(db: AsyncSession, token: str, now: datetime) -> Invitation:
    """The invitation a link's token stands for, while it can still be accepted; else 410 `link_invalid`."""
    invitation = await InvitationRepository(db).by_token_hash(hash_token(token))
    if invitation is None or invitation.accepted_at is not None or invitation.expires_at <= now:
        raise link_invalid("invitation")
    return invitation


async def open_for_email(db: AsyncSession, email: str, now: datetime) -> Sequence[Invitation]:
    """The invitations of any account that this (normalised) email can still accept."""
    return await InvitationRepository(db).open_for_email(email, now)


async def accept(db: AsyncSession, token: str, *, name: str, password_hash: str, now: datetime) -> User:
    """The new member the invitation makes; the link is used up."""
    invitation = await open_invitation(db, token, now)
    return await join(db, invitation, name=name, password_hash=password_hash, now=now)


async def join(db: AsyncSession, invitation: Invitation, *, name: str, password_hash: str, now: datetime) -> User:
    """The new member an open invitation makes (its link, or a single sign-on with its email); it is used up.

    The invitation is claimed first, by a conditional update: of several acceptances at once (a double click, a
    link opened twice) exactly one makes the member, and every other one answers 410 `link_invalid` (`Claimed`), as
    for a link used before; reading it open and then inserting let two of them reach the member's insert."""
    if not await InvitationRepository(db).claim(invitation.uuid, now):
        raise Claimed()
    user = await members.add(
        db,
        invitation.account_uuid,
        email=invitation.email,
        name=name,
        password_hash=password_hash,
        role=Role(invitation.role),
        now=now,
    )
    return user
