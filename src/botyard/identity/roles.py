"""What each role may do: a few permissions, each a group of operations, granted to roles in one table.

| permission  | what it covers                                                          | roles                     |
|-------------|-------------------------------------------------------------------------|---------------------------|
| `read`      | every read of the account's objects (chatbots, sources, conversations)  | all                       |
| `self`      | one's own session: who am I, sign out                                   | all                       |
| `chat`      | talk to the account's chatbots as their owner (playground, documents)   | not viewer                |
| `live`      | inbox and live chat: take over, answer, dismiss, seen; contacts' edits  | owner, admin, operator    |
| `knowledge` | sources, tags, crawls and syncs, agents and tools, test sets, review    | owner, admin, editor      |
| `manage`    | chatbots, settings, widget, webhooks, retention, deletions (contacts')  | owner, admin              |
| `access`    | members, invitations, API keys                                          | owner, admin              |
| `settings`  | the instance's settings (model, fetching, CORS); only in its first account | owner, admin              |
| `ownership` | grant or take the owner role (checked by the members service)           | owner                     |

An API key acts as an admin of its account: everything a program could do before people existed.
"""

from __future__ import annotations

from botyard.models.kinds import Permission, Role

__all__ = ["GRANTS", "KEY_ROLE", "Permission", "allows", "permissions_of"]


_EVERYONE = frozenset({Permission.READ, Permission.SELF})

GRANTS: dict[Role, frozenset[Permission]] = {
    Role.OWNER: frozenset(Permission),
    Role.ADMIN: frozenset(Permission) - {Permission.OWNERSHIP},
    Role.EDITOR: _EVERYONE | {Permission.CHAT, Permission.KNOWLEDGE},
    Role.OPERATOR: _EVERYONE | {Permission.CHAT, Permission.LIVE},
    Role.VIEWER: _EVERYONE,
}

KEY_ROLE = Role.ADMIN
"""The role an API key acts with."""


def allows(role: Role, permission: Permission) -> bool:
    return permission in GRANTS[role]


def permissions_of(role: Role) -> list[str]:
    """The role's permissions, in the enum's order (what the dashboard reads to show or hide controls)."""
    return [permission.value for permission in Permission if permission in GRANTS[role]]
