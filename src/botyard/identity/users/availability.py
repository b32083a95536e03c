"""Whether a person is there to take a conversation: each person who may (the `live` permission) says available
or away, in the dashboard. When the account has such people and every one of them is away, a visitor who asks for
a person is told so and offered the contact form, as after office hours; an account with nobody but its API keys
(a program answers its inbox) is never "away". Operators' names sign their live-chat messages."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.errors import AppError, ErrorCode
from botyard.identity.principal import Principal
from botyard.identity.roles import GRANTS, Permission
from botyard.identity.users.members import members
from botyard.identity.users.repository import UserRepository
from botyard.models import Role, User

TAKERS = [role for role, granted in GRANTS.items() if Permission.LIVE in granted]
"""The roles whose people take conversations."""


async def someone_there(db: AsyncSession, account_uuid: str) -> bool:
    """False only when the account has people who take conversations and every one of them is away."""
    takers = await UserRepository(db).takers(account_uuid, TAKERS)
    return not takers or any(not away for _email, away in takers)


async def people_there(db: AsyncSession, account_uuid: str) -> bool:
    """Whether one of the account's people who take conversations is there (not away): what the built-in hand-off
    of a chatbot without a human-escalation agent promises (`live.handoff_policy`)."""
    return any(not away for _email, away in await UserRepository(db).takers(account_uuid, TAKERS))


async def addresses_of_those_there(db: AsyncSession, account_uuid: str) -> list[str]:
    """The email addresses of the account's people who take conversations and are not away (whom a waiting
    visitor is announced to when a chatbot lists no addresses of its own)."""
    return sorted(email for email, away in await UserRepository(db).takers(account_uuid, TAKERS) if not away)


async def set_away(db: AsyncSession, principal: Principal, away: bool) -> User:
    """The signed-in person says whether they are away; an API key is nobody (409 `not_a_person`)."""
    if principal.user_uuid is None:
        raise AppError(ErrorCode.NOT_A_PERSON, "An API key is not a person: sign in to the dashboard to say this")
    user = await UserRepository(db).get_owned(principal.account_uuid, principal.user_uuid)
    user.away = away
    return user


async def operator_name(db: AsyncSession, principal: Principal) -> str | None:
    """The name that signs the person's live-chat messages; None for an API key (the widget says "Operator")."""
    if principal.user_uuid is None:
        return None
    user = await UserRepository(db).get_owned(principal.account_uuid, principal.user_uuid)
    return user.name.strip() or None


async def takers_of(db: AsyncSession, account_uuid: str) -> list[User]:
    """The account's people who take conversations (owners, admins, operators), by name: who a conversation may be
    assigned to."""
    found = [user for user in await members(db, account_uuid) if Role(user.role) in TAKERS]
    return sorted(found, key=lambda user: (user.name.casefold(), user.email))
