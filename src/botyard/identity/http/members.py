"""Members, invitations and reset links, for an account's owners and admins (`access`); the keys are `keys.py`."""

from __future__ import annotations

from fastapi import APIRouter, Request

from botyard.db.base import iso
from botyard.deps import AppClock, DbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity import resets
from botyard.identity.access import Also, Audited, made, requires
from botyard.identity.caller import CurrentPrincipal
from botyard.identity.http.member_schemas import (
    InvitationCreate,
    InvitationCreated,
    InvitationInfo,
    Member,
    MemberRemoval,
    MemberRemoved,
    ResetLink,
    RoleChange,
    invitation_view,
    member_view,
)
from botyard.identity.invitations import service as invitations
from botyard.identity.links import dashboard_link
from botyard.identity.users import members, service
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import Success

router = APIRouter(tags=["members"])

_OWNERSHIP = error_responses({ErrorCode.FORBIDDEN_ROLE: "only an owner grants, changes or removes the owner role."})
_TAKEN = error_responses({ErrorCode.EMAIL_TAKEN: "a member of this service has that email already."})


@router.get("/account/members", response_model=list[Member], dependencies=[requires(Permission.ACCESS)])
async def list_members(db: DbSession, principal: CurrentPrincipal) -> list[Member]:
    """List the account's members: email, name, role, since when."""
    return [member_view(user) for user in await members.members(db, principal.account_uuid)]


@router.post(
    "/account/member/{uuid}/role",
    response_model=Member,
    responses=_OWNERSHIP | error_responses({ErrorCode.LAST_OWNER: "the account's last owner keeps the role."}),
    dependencies=[requires(Permission.ACCESS, Audited(AuditObject.MEMBER, AuditAction.UPDATED, "role"))],
)
async def change_role(uuid: str, body: RoleChange, db: DbSession, principal: CurrentPrincipal) -> Member:
    """Give a member another role; it counts from their next request."""
    return member_view(await members.change_role(db, principal, uuid, body.role))


@router.post(
    "/account/member/{uuid}/remove",
    response_model=MemberRemoved,
    responses=_OWNERSHIP | error_responses({ErrorCode.LAST_OWNER: "the account's last owner cannot leave."}),
    dependencies=[
        requires(
            Permission.ACCESS,
            Audited(
                AuditObject.MEMBER,
                AuditAction.DELETED,
                also=Also("revoked_keys", AuditObject.KEY, AuditAction.REVOKED, "made by the member removed"),
            ),
        )
    ],
)
async def remove_member(
    uuid: str, db: DbSession, principal: CurrentPrincipal, body: MemberRemoval | None = None
) -> MemberRemoved:
    """Remove a member from the account; their sessions end at once. The API keys they made keep working unless
    `revoke_keys` is true: then they are revoked too, and the reply's `revoked_keys` lists their prefixes (the
    audit log records each revocation, by whoever removed the member)."""
    revoke = body is not None and body.revoke_keys
    revoked = await service.remove(db, principal, uuid, revoke_keys=revoke)
    return {"success": True, "revoked_keys": revoked} if revoke else {"success": True}


@router.post(
    "/account/member/{uuid}/reset-link",
    response_model=ResetLink,
    responses=_OWNERSHIP,
    dependencies=[
        requires(Permission.ACCESS, Audited(AuditObject.MEMBER, AuditAction.UPDATED, "password reset link issued"))
    ],
)
async def reset_link(
    uuid: str, request: Request, db: DbSession, principal: CurrentPrincipal, now: AppClock
) -> ResetLink:
    """Make a one-time password reset link for a member (valid for an hour; a new one replaces it). The link is in
    this reply only: pass it on to the person."""
    user, token = await resets.issue_for_member(db, principal, uuid, now())
    assert user.reset_expires_at is not None
    link = dashboard_link(str(request.base_url), "reset", token)
    return {"email": user.email, "link": link, "expires_at": iso(user.reset_expires_at)}


@router.get("/account/invitations", response_model=list[InvitationInfo], dependencies=[requires(Permission.ACCESS)])
async def list_invitations(db: DbSession, principal: CurrentPrincipal, now: AppClock) -> list[InvitationInfo]:
    """List the account's open invitations (the links themselves are never shown again)."""
    return [invitation_view(item) for item in await invitations.pending(db, principal.account_uuid, now())]


@router.post(
    "/account/invitation/create",
    response_model=InvitationCreated,
    responses=_OWNERSHIP | _TAKEN,
    dependencies=[requires(Permission.ACCESS, made(AuditObject.INVITATION))],
)
async def invite(
    body: InvitationCreate, request: Request, db: DbSession, principal: CurrentPrincipal, now: AppClock
) -> InvitationCreated:
    """Invite an email with a role. The reply's `link` (valid for 7 days, once) is the only copy: pass it on; the
    person opens it, chooses a name and a password, and is signed in."""
    issued = await invitations.invite(db, principal, body.email, body.role, now())
    link = dashboard_link(str(request.base_url), "invite", issued.token)
    return {**invitation_view(issued.invitation), "link": link}


@router.post(
    "/account/invitation/{uuid}/withdraw",
    response_model=Success,
    dependencies=[requires(Permission.ACCESS, Audited(AuditObject.INVITATION, AuditAction.DELETED))],
)
async def withdraw_invitation(uuid: str, db: DbSession, principal: CurrentPrincipal) -> Success:
    """Withdraw an open invitation: its link stops working."""
    await invitations.withdraw(db, principal.account_uuid, uuid)
    return Success()
