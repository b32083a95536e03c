"""The first half of a sign-in and what the second half checks against.

`begin` draws the state (the callback must come back with it: no other site can start a sign-in in this browser's
name), the nonce (the ID token must carry it: a token issued for another sign-in is refused) and the PKCE verifier
(the code is worth nothing without it, should it leak from the address bar or a log), all with authlib's generator.
They ride to the callback in one cookie, `botyard_oidc`: HttpOnly, SameSite=Lax (it must come back with the
provider's top-level redirect), sent only to `/api/v1/auth/oidc`, lasting `LIFETIME`, and signed with a key derived
from the client secret, so that the service itself enforces its age and nobody can write one of their own. The
callback clears it, whatever the outcome.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import asdict, dataclass

from authlib.common.security import generate_token
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from botyard.identity.sso.refusals import Refusal, SignInRefused

COOKIE = "botyard_oidc"
PATH = "/api/v1/auth/oidc"
LIFETIME = 600
"""Seconds a person has at the provider before the sign-in must start again."""
SCOPE = "openid email profile"


@dataclass(frozen=True)
class Flow:
    state: str
    nonce: str
    verifier: str
    started: int
    """Unix seconds."""


def begin(now: int) -> Flow:
    return Flow(state=generate_token(43), nonce=generate_token(43), verifier=generate_token(64), started=now)


def authorization_url(endpoint: str, flow: Flow, *, client_id: str, redirect_uri: str) -> str:
    """Where the browser goes to sign in at the provider (authorization code flow, PKCE S256)."""
    url: str = prepare_grant_uri(
        endpoint,
        client_id,
        "code",
        redirect_uri=redirect_uri,
        scope=SCOPE,
        state=flow.state,
        nonce=flow.nonce,
        code_challenge=create_s256_code_challenge(flow.verifier),
        code_challenge_method="S256",
    )
    return url


def cookie_key(client_secret: str) -> bytes:
    """The cookie's signing key: derived from the client secret, which only this service knows."""
    return hmac.new(client_secret.encode(), b"botyard oidc flow cookie", hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def seal(flow: Flow, key: bytes) -> str:
    body = _b64(json.dumps(asdict(flow), separators=(",", ":")).encode())
    return f"{body}.{_b64(hmac.new(key, body.encode(), hashlib.sha256).digest())}"


def _unseal(value: str, key: bytes) -> Flow | None:
    body, _, signature = value.partition(".")
    expected = _b64(hmac.new(key, body.encode(), hashlib.sha256).digest())
    if not hmac.compare_digest(signature.encode(), expected.encode()):
        return None
    try:
        fields = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        return Flow(**fields)
    except (ValueError, TypeError):
        return None


def opened(cookie: str | None, key: bytes, now: int) -> Flow:
    """The sign-in this browser started: its cookie signed by this service and not older than `LIFETIME`."""
    flow = _unseal(cookie, key) if cookie else None
    if flow is None:
        raise SignInRefused(Refusal.EXPIRED, "no valid sign-in cookie (not started in this browser)")
    if not 0 <= now - flow.started <= LIFETIME:
        raise SignInRefused(Refusal.EXPIRED, f"started {now - flow.started} s ago")
    return flow


def check_state(flow: Flow, state: str | None) -> None:
    """The callback answers this very sign-in: it came back with its state."""
    if not state or not hmac.compare_digest(state.encode(), flow.state.encode()):
        raise SignInRefused(Refusal.EXPIRED, "the state does not match this browser's sign-in")
