from __future__ import annotations

from dataclasses import dataclass

from botyard.models.user import Role, User
from botyard.people.roles import Permission, allows


@dataclass(frozen=True)
class Principal:
    """Who signs a request: a person of the account (through a session cookie) or one of its API keys (acting as
    an admin). Either way every object is looked up within `account_uuid`."""

    account_uuid: str
    role: Role
    user_uuid: str | None = None
    """The person; None for an API key."""
    session_uuid: str | None = None
    """The signed-in browser; None for an API key."""

    def can(self, permission: Permission) -> bool:
        return allows(self.role, permission)


def of_user(user: User, session_uuid: str | None = None) -> Principal:
    return Principal(
        account_uuid=user.account_uuid, role=Role(user.role), user_uuid=user.uuid, session_uuid=session_uuid
    )
