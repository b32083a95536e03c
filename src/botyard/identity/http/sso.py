"""Single sign-on's three endpoints: what the sign-in page offers, the start (to the provider) and the callback
(back from it, signed in with the same session cookies as a password sign-in, or refused with a reason)."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse

from botyard.config import Settings, env_name
from botyard.deps import AppClock, AppDatabase, AppSettings
from botyard.errors import AppError, ErrorCode, Responses, error_responses
from botyard.identity.access import public
from botyard.identity.browser_sessions import cookies
from botyard.identity.browser_sessions.opening import opener
from botyard.identity.http.sso_schemas import SsoInfo
from botyard.identity.principal import of_user
from botyard.identity.recording import Change, note
from botyard.identity.sso import flow
from botyard.identity.sso.provider import Provider
from botyard.identity.sso.refusals import MESSAGES, Refusal, SignInRefused
from botyard.identity.sso.service import signed_in
from botyard.models import AuditAction, AuditObject

log = logging.getLogger(__name__)
router = APIRouter(prefix="/auth/oidc", tags=["sign-in"])
SIGNED_IN = "/dashboard#/chatbots"
_REDIRECT: Responses = {
    303: {"description": "To the provider (start) or back to the dashboard, signed in or with `#sso=<refusal>`."},
    **error_responses({ErrorCode.NOT_FOUND: "single sign-on is not configured."}),
}
QueryText = Annotated[str | None, Query(max_length=4000)]


async def _provider(request: Request) -> Provider:
    provider: Provider | None = getattr(request.app.state, "oidc", None)
    if provider is None:
        names = ", ".join(env_name(name) for name in ("oidc_discovery_url", "oidc_client_id", "oidc_client_secret"))
        raise AppError(ErrorCode.NOT_FOUND, f"Single sign-on is not configured: set {names}")
    return provider


AppProvider = Annotated[Provider, Depends(_provider)]


def _label(settings: Settings) -> str:
    return settings.oidc_name or "single sign-on"


def _refused(refusal: SignInRefused) -> RedirectResponse:
    log.info("single sign-on refused: %s", refusal)
    return RedirectResponse(f"/dashboard#sso={refusal.refusal.value}", status_code=303)


@router.get("", response_model=SsoInfo, dependencies=[public()])
async def sso_info(request: Request, settings: AppSettings) -> SsoInfo:
    """Whether single sign-on is offered, the label of its button, and the message of each refusal reason that the
    callback may send back to the dashboard (`/dashboard#sso=<reason>`)."""
    return {
        "enabled": getattr(request.app.state, "oidc", None) is not None,
        "name": _label(settings),
        "start": f"{flow.PATH}/start",
        "refusals": {refusal.value: message for refusal, message in MESSAGES.items()},
    }


@router.get("/start", response_class=RedirectResponse, status_code=303, responses=_REDIRECT, dependencies=[public()])
async def start(request: Request, provider: AppProvider, settings: AppSettings, now: AppClock) -> RedirectResponse:
    """Start a single sign-on: a redirect to the provider, with the state, nonce and PKCE challenge of this browser's
    sign-in (kept for 10 minutes in a signed HttpOnly cookie)."""
    try:
        metadata = await provider.metadata()
    except SignInRefused as refusal:
        return _refused(refusal)
    begun = flow.begin(int(now().timestamp()))
    client = provider.client
    url = flow.authorization_url(
        metadata.authorization_endpoint, begun, client_id=client.client_id, redirect_uri=client.redirect_uri
    )
    response = RedirectResponse(url, status_code=303)
    sealed = flow.seal(begun, flow.cookie_key(client.client_secret))
    secure = cookies.is_secure(request)
    response.set_cookie(
        flow.COOKIE, sealed, max_age=flow.LIFETIME, path=flow.PATH, secure=secure, httponly=True, samesite="lax"
    )
    return response


@router.get("/callback", response_class=RedirectResponse, status_code=303, responses=_REDIRECT, dependencies=[public()])
async def callback(
    request: Request,
    provider: AppProvider,
    database: AppDatabase,
    now: AppClock,
    code: QueryText = None,
    state: QueryText = None,
    error: QueryText = None,
) -> RedirectResponse:
    """Where the provider sends the browser back: the state, the code (exchanged with the PKCE verifier) and the ID
    token are checked, and the member it names is signed in; any refusal goes back to the sign-in page with its
    reason, and writes nothing."""
    moment = now()
    response = RedirectResponse(SIGNED_IN, status_code=303)
    try:
        key = flow.cookie_key(provider.client.client_secret)
        begun = flow.opened(request.cookies.get(flow.COOKIE), key, int(moment.timestamp()))
        if error is not None:  # an error signs nobody in; some providers leave the state out of it
            raise SignInRefused(Refusal.CANCELLED, f"the provider answered error={error[:100]!r}")
        flow.check_state(begun, state)
        if not code:
            raise SignInRefused(Refusal.PROVIDER_ERROR, "the provider sent no code")
        identity = await provider.identity(code, begun.verifier, begun.nonce, int(moment.timestamp()))
        opened = await signed_in(database, identity, moment, opener(request, response, moment))
        summary = f"signed in with single sign-on: {opened.user.email}"
        await note(
            request, of_user(opened.user), Change(AuditAction.SIGNED_IN, AuditObject.SESSION, opened.user.uuid, summary)
        )
    except SignInRefused as refusal:
        response = _refused(refusal)  # and the session cookies set on the redirect go with it
    secure = cookies.is_secure(request)
    response.delete_cookie(flow.COOKIE, path=flow.PATH, secure=secure, httponly=True, samesite="lax")
    return response
