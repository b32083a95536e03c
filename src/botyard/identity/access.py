"""What a route declares where it is defined: the permission its signer needs, and what a successful change writes
to the audit log. One declaration per route, in its decorator (`dependencies=[requires(...)]` or `[public()]`), so
that renaming a path is one edit and nothing keyed by path strings has to be kept in step.

- `requires(permission, audits=...)`: the route reads who signs it (`caller.CurrentAccount`, `OptionalAccount`,
  `CurrentPrincipal`), and `caller` lets a person through only with `permission` (403 `forbidden_role`); an API
  key acts as an admin. A changing route (POST, PUT, PATCH, DELETE) also says what it audits: `Audited(...)` (or
  `made(...)` for a creation), or `NotAudited(why)` where it changes nothing an owner audits (conversations
  themselves, searches). The audit recorder (`botyard.audit.recorder`) reads it from `scope["route"]` after a 2xx.
- `public()`: nobody signs the route (sign-in and the links that open a session, the setup link, the widget).

`tests/identity/test_permissions.py` and `test_audit_declarations.py` read these from the app's routes: a route that
declares nothing, or a changing one that does not say what it audits, fails them. At run time a signed route
without a declaration refuses every person (403 `forbidden_role`); an API key passes, as before people existed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import Depends

from botyard.identity.roles import Permission
from botyard.models.audit_kinds import AuditAction, AuditObject


@dataclass(frozen=True)
class Also:
    """Objects a route changes besides its own, named by a list of ids in the reply's `field` (when there): one
    event each, `action` to an object of `object_type`, by the same actor."""

    field: str
    object_type: AuditObject
    action: AuditAction
    note: str = ""


@dataclass(frozen=True)
class Audited:
    """What a route does: `action` to an object of `object_type`. The object's id is the reply's `uuid` (or
    `prefix`) where `from_reply` (what a creation made), else the route's path parameter; `note` adds to the
    summary what the action alone does not say; `also`: what else it changed."""

    object_type: AuditObject
    action: AuditAction
    note: str = ""
    from_reply: bool = False
    also: Also | None = None


@dataclass(frozen=True)
class NotAudited:
    """A changing route that writes nothing to the audit log, and why (a search, a conversation)."""

    why: str


def made(object_type: AuditObject, note: str = "", action: AuditAction = AuditAction.CREATED) -> Audited:
    """A route that creates an object: its id is the reply's."""
    return Audited(object_type, action, note, from_reply=True)


@dataclass(frozen=True)
class Access:
    """A route's declaration: the permission its signer needs (None: a public route) and what it audits (None for
    a read, which writes nothing). A dependency that does nothing itself: `caller` and the audit recorder read it."""

    permission: Permission | None
    audits: Audited | NotAudited | None = None

    async def __call__(self) -> None:
        return None


def requires(permission: Permission, audits: Audited | NotAudited | None = None) -> Any:
    """Declare, in a route's `dependencies`, the permission it needs and (if it changes anything) what it audits."""
    return Depends(Access(permission, audits))


def public() -> Any:
    """Declare, in a route's `dependencies`, that nobody signs it."""
    return Depends(Access(None))


def access_of(route: object) -> Access | None:
    """The declaration of a route (`scope["route"]`), or None when it declares nothing."""
    for dependency in getattr(route, "dependencies", None) or ():
        if isinstance(getattr(dependency, "dependency", None), Access):
            found: Access = dependency.dependency
            return found
    return None


def audited_of(route: object) -> Audited | None:
    """What a successful request to `route` records; None when nothing."""
    access = access_of(route)
    return access.audits if access is not None and isinstance(access.audits, Audited) else None
