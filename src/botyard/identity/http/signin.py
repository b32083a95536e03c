"""Dashboard sign-in by email and password, sign-out (of this browser or of every one), who am I, and the two links
that open a session: an invitation accepted and a password reset. Sign-in answers with the session cookies
(`browser_sessions/cookies.py`); no reply ever carries a password or a token."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from botyard.client_address import client_address, trusted_networks
from botyard.config import Settings
from botyard.db.base import iso
from botyard.deps import AppClock, AppDatabase, DbSession
from botyard.errors import AppError, ErrorCode, error_responses, validation_error
from botyard.identity import passwords, resets
from botyard.identity.access import Audited, NotAudited, public, requires
from botyard.identity.browser_sessions import cookies, csrf, devices, sessions
from botyard.identity.browser_sessions.opening import open_browser_session, opener
from botyard.identity.caller import CurrentPrincipal
from botyard.identity.http.member_schemas import member_view
from botyard.identity.http.signin_schemas import (
    AcceptInvitation,
    Availability,
    InvitationPreview,
    LinkBody,
    Me,
    ResetPassword,
    SignedOut,
    SignInBody,
)
from botyard.identity.invitations import service as invitations
from botyard.identity.principal import Principal, of_user
from botyard.identity.recording import Change, note
from botyard.identity.roles import permissions_of
from botyard.identity.signin.password import Attempt
from botyard.identity.signin.password import sign_in as check_sign_in
from botyard.identity.users import availability, members
from botyard.models import AuditAction, AuditObject, Permission, User

router = APIRouter(prefix="/auth", tags=["sign-in"])

_CROSS_SITE = {ErrorCode.CSRF_REFUSED: "the request came from another site's page."}
_SIGN_IN = error_responses(
    {
        **_CROSS_SITE,
        ErrorCode.SIGNIN_FAILED: "wrong email or password.",
        ErrorCode.SIGNIN_THROTTLED: "too many wrong passwords for this address or from this network; `Retry-After` "
        "says when to try again.",
    }
)
_LINK = error_responses({**_CROSS_SITE, ErrorCode.LINK_INVALID: "the link expired, was used, or never existed."})


def me_view(principal: Principal, user: User | None) -> Me:
    return {
        "account_uuid": principal.account_uuid,
        "role": principal.role.value,
        "permissions": permissions_of(principal.role),
        "user": member_view(user) if user is not None else None,
    }


def _sign_in_change(action: AuditAction, user: User) -> Change:
    return Change(action, AuditObject.SESSION, user.uuid, f"{action.value.replace('_', ' ')}: {user.email}")


async def _signed_in(db: DbSession, user: User, request: Request, response: Response, now: AppClock) -> Me:
    """Open a browser session for `user` in the request's transaction and answer with its cookies."""
    opened = await open_browser_session(db, user, request, response, now())
    await note(request, of_user(opened.user), _sign_in_change(AuditAction.SIGNED_IN, opened.user), db)
    return me_view(of_user(opened.user, None), opened.user)


@router.post("/sign-in", response_model=Me, responses=_SIGN_IN, dependencies=[public()])
async def sign_in(body: SignInBody, request: Request, response: Response, database: AppDatabase, now: AppClock) -> Me:
    """Sign in to the dashboard with an email and a password: the reply sets the session cookie (HttpOnly) and the
    cross-site token cookie whose value the dashboard echoes in `X-Botyard-CSRF` on every change, and the device
    cookie that lets this browser sign in as this address while others' wrong passwords keep it waiting."""
    csrf.check_origin(request.headers)
    moment = now()
    device_cookies: devices.DeviceCookies = request.app.state.device_cookies
    device = device_cookies.opened(request.cookies.get(devices.COOKIE), moment)
    attempt = Attempt(body.email, body.password, _client(request), device)
    try:
        signed_in = await check_sign_in(database, attempt, moment, opener(request, response, moment))
    except AppError as error:
        if error.code == ErrorCode.SIGNIN_FAILED:
            await _note_failure(request, database, body.email)
        raise
    opened = signed_in.opened
    await note(request, of_user(opened.user), _sign_in_change(AuditAction.SIGNED_IN, opened.user))
    device_cookies.set(response, request, signed_in.device, moment)
    return me_view(of_user(opened.user), opened.user)


def _client(request: Request) -> str:
    settings: Settings = request.app.state.settings
    peer = request.client.host if request.client is not None else None
    return client_address(peer, request.headers.get("x-forwarded-for"), trusted_networks(settings.trusted_proxies))


async def _note_failure(request: Request, database: AppDatabase, email: str) -> None:
    """A wrong password for a person of an account goes to that account's log (an unknown email to none)."""
    try:
        user = await database.read_briefly(lambda db: members.by_email(db, email))
    except AppError:
        return  # not an email at all
    if user is not None:
        await note(request, of_user(user), _sign_in_change(AuditAction.SIGNIN_FAILED, user), proven=False)


@router.get("/me", response_model=Me, dependencies=[requires(Permission.SELF)])
async def me(db: DbSession, principal: CurrentPrincipal) -> Me:
    """Who signs the request, with the role's permissions (an API key: `user` null, role `admin`)."""
    user = await members.member(db, principal.account_uuid, principal.user_uuid) if principal.user_uuid else None
    return me_view(principal, user)


@router.post(
    "/availability",
    response_model=Me,
    responses=error_responses({ErrorCode.NOT_A_PERSON: "an API key."}),
    dependencies=[
        requires(Permission.LIVE, NotAudited("an operator's presence, as live chat: not a change to the account"))
    ],
)
async def set_availability(body: Availability, db: DbSession, principal: CurrentPrincipal) -> Me:
    """Say whether you are there to take conversations (people with the `live` permission). When every such person
    of the account is away, a visitor who asks for a person is told nobody is available and offered the contact
    form, as after office hours."""
    user = await availability.set_away(db, principal, body.away)
    return me_view(principal, user)


@router.post(
    "/sign-out",
    response_model=SignedOut,
    dependencies=[requires(Permission.SELF, Audited(AuditObject.SESSION, AuditAction.SIGNED_OUT))],
)
async def sign_out(request: Request, response: Response, db: DbSession, principal: CurrentPrincipal) -> SignedOut:
    """Sign this browser out: its session ends and its cookies are cleared."""
    if principal.browser_session_uuid is not None:
        await sessions.end(db, principal.browser_session_uuid)
    cookies.clear_session(response, request)
    return {"ended": 1 if principal.browser_session_uuid else 0}


@router.post(
    "/sign-out-everywhere",
    response_model=SignedOut,
    responses=error_responses({ErrorCode.VALIDATION_ERROR: "an API key signed the request; it has no sessions."}),
    dependencies=[requires(Permission.SELF, Audited(AuditObject.SESSION, AuditAction.SIGNED_OUT, "everywhere"))],
)
async def sign_out_everywhere(
    request: Request, response: Response, db: DbSession, principal: CurrentPrincipal
) -> SignedOut:
    """End every session of the signed-in person, in every browser, at once."""
    if principal.user_uuid is None:
        raise validation_error("An API key has no sessions: revoke the key instead")
    ended = await sessions.end_all(db, principal.user_uuid)
    cookies.clear_session(response, request)
    return {"ended": ended}


@router.post("/invitation", response_model=InvitationPreview, responses=_LINK, dependencies=[public()])
async def preview_invitation(body: LinkBody, db: DbSession, now: AppClock) -> InvitationPreview:
    """What an invitation link offers (the email and the role), while it can still be accepted."""
    invitation = await invitations.open_invitation(db, body.token, now())
    return {"email": invitation.email, "role": invitation.role, "expires_at": iso(invitation.expires_at)}


@router.post("/invitation/accept", response_model=Me, responses=_LINK, dependencies=[public()])
async def accept_invitation(
    body: AcceptInvitation, request: Request, response: Response, db: DbSession, now: AppClock
) -> Me:
    """Accept an invitation: choose a name and a password (10 characters or more); the reply signs you in."""
    csrf.check_origin(request.headers)
    password_hash = await passwords.hash_password(body.password)  # before the transaction's first statement
    user = await invitations.accept(db, body.token, name=body.name, password_hash=password_hash, now=now())
    await note(request, of_user(user), _sign_in_change(AuditAction.INVITATION_ACCEPTED, user), db)
    return await _signed_in(db, user, request, response, now)


@router.post("/password-reset", response_model=Me, responses=_LINK, dependencies=[public()])
async def reset_password(body: ResetPassword, request: Request, response: Response, db: DbSession, now: AppClock) -> Me:
    """Set a new password with a reset link's token: every other session of the person ends, and the reply signs
    this browser in."""
    csrf.check_origin(request.headers)
    password_hash = await passwords.hash_password(body.password)
    user = await resets.reset(db, body.token, password_hash=password_hash, now=now())
    await note(request, of_user(user), _sign_in_change(AuditAction.PASSWORD_RESET, user), db)
    return await _signed_in(db, user, request, response, now)
