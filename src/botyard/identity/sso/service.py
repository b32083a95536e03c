"""Who a single sign-on signs in, decided in the one brief write transaction that opens the session.

1. The provider's subject (`iss` + `sub`) linked to a member: that member, whatever the email says now.
2. Else the email decides, and only a verified one (`email_verified` true in the ID token):
   - a member with that email, not yet linked at this provider: linked now, and signed in;
     one linked to another subject of this provider: refused (someone given that email later is not them);
   - else one open invitation for that email: accepted (a member without a password, who can get one by a reset
     link), linked, and signed in; invitations from several accounts: refused (the person opens the link they want);
   - else refused: no account or member is ever created without an invitation;
   - an email with a character that passes for another letter (`people.emails`) is refused before any of this.

A refusal raises SignInRefused, which rolls the transaction back: nothing is written. Two first sign-ins of one
subject at the same moment both try to link it (or to accept its invitation); the second one's insert breaks the
unique link (or its claim of the invitation finds it accepted) and runs again, and then finds the link.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.session import Database
from botyard.errors import AppError
from botyard.identity.browser_sessions.opening import Opener
from botyard.identity.browser_sessions.sessions import OpenedBrowserSession
from botyard.identity.emails import normalise_email, stand_in
from botyard.identity.invitations import service as invitations
from botyard.identity.sso.idtoken import Identity
from botyard.identity.sso.refusals import Refusal, SignInRefused
from botyard.identity.sso.repository import IdentityRepository
from botyard.identity.users import members
from botyard.models import OidcIdentity, User


async def signed_in(
    database: Database, identity: Identity, now: datetime, open_session: Opener
) -> OpenedBrowserSession:
    """A new browser session (`open_session`) for the member the identity names (linked on first sign-in), in one
    brief write transaction."""

    async def open_one(db: AsyncSession) -> OpenedBrowserSession:
        return await open_session(db, await member_of(db, identity, now))

    try:
        return await database.write_briefly(open_one)
    except (IntegrityError, invitations.Claimed):  # the same subject linked by a sign-in that committed first
        return await database.write_briefly(open_one)


async def member_of(db: AsyncSession, identity: Identity, now: datetime) -> User:
    repository = IdentityRepository(db)
    link = await repository.by_subject(identity.issuer, identity.subject)
    if link is not None:
        user = await members.by_uuid(db, link.user_uuid)
        if user is not None:
            link.last_signin_at = now
            return user
    email = _verified_email(identity)
    user = await members.by_email(db, email)
    if user is not None:
        if await repository.of_user(user.uuid, identity.issuer) is not None:
            raise SignInRefused(Refusal.LINKED_ELSEWHERE, "the member with this email is linked to another subject")
    else:
        user = await _join(db, identity, email, now)
    await repository.add(
        OidcIdentity(
            user_uuid=user.uuid, issuer=identity.issuer, subject=identity.subject, created_at=now, last_signin_at=now
        )
    )
    return user


def _verified_email(identity: Identity) -> str:
    if identity.email is None:
        raise SignInRefused(Refusal.EMAIL_UNVERIFIED, "the ID token has no email")
    if not identity.email_verified:
        raise SignInRefused(Refusal.EMAIL_UNVERIFIED, "the ID token's email_verified is not true")
    if any(stand_in(char) for char in identity.email):  # `Kate@` with the Kelvin sign is not `kate@`
        raise SignInRefused(Refusal.LOOKALIKE_EMAIL, "the ID token's email has a character that passes for another")
    try:
        return normalise_email(identity.email)
    except AppError:
        raise SignInRefused(Refusal.EMAIL_UNVERIFIED, "the ID token's email is not an email address") from None


async def _join(db: AsyncSession, identity: Identity, email: str, now: datetime) -> User:
    offers = await invitations.open_for_email(db, email, now)
    if not offers:
        raise SignInRefused(Refusal.UNKNOWN_EMAIL, "no member and no open invitation has this email")
    if len(offers) > 1:
        raise SignInRefused(Refusal.SEVERAL_INVITATIONS, f"{len(offers)} accounts invited this email")
    return await invitations.join(db, offers[0], name=identity.name, password_hash=members.NO_PASSWORD, now=now)
