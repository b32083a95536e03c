from __future__ import annotations

from dataclasses import dataclass

from botyard.identity.roles import Permission, allows
from botyard.models.user import Role, User


@dataclass(frozen=True)
class Principal:
    """Who signs a request: a person of the account (through a session cookie) or one of its API keys (acting as
    an admin). Either way every object is looked up within `account_uuid`."""

    account_uuid: str
    role: Role
    user_uuid: str | None = None
    """The person; None for an API key."""
    browser_session_uuid: str | None = None
    """The signed-in browser; None for an API key."""
    email: str = ""
    """The person's email (what the audit log keeps of who acted); empty for an API key."""
    name: str = ""
    """The person's name, or the API key's."""
    key_prefix: str = ""
    """The API key's prefix (never the key); empty for a person."""

    def can(self, permission: Permission) -> bool:
        return allows(self.role, permission)


def of_user(user: User, browser_session_uuid: str | None = None) -> Principal:
    return Principal(
        account_uuid=user.account_uuid,
        role=Role(user.role),
        user_uuid=user.uuid,
        browser_session_uuid=browser_session_uuid,
        email=user.email,
        name=user.name,
    )
