"""The checks of single sign-on as pure functions, each a table: the ID token (signature, algorithm, issuer, audience,
expiry, nonce, subject), the sign-in cookie (signed, fresh, same state) and the provider's discovery document."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, OctKey, RSAKey

from botyard.identity.sso import flow
from botyard.identity.sso.idtoken import Expected, InvalidToken, UnknownKey, validate
from botyard.identity.sso.provider import parse_metadata
from botyard.identity.sso.refusals import Refusal, SignInRefused

NOW = 1_800_000_000
ISSUER = "https://id.example.com"
KEY = RSAKey.generate_key(2048, parameters={"kid": "one"})
OTHER = RSAKey.generate_key(2048, parameters={"kid": "two"})
JWKS = KeySet([KEY]).as_dict(private=False)
EXPECTED = Expected(issuer=ISSUER, client_id="botyard", nonce="n-123", algorithms=["RS256"])


def claims(**changes: Any) -> dict[str, Any]:
    base = {
        "iss": ISSUER,
        "sub": "user-1",
        "aud": "botyard",
        "exp": NOW + 300,
        "iat": NOW - 5,
        "nonce": "n-123",
        "email": "ann@example.com",
        "email_verified": True,
        "name": "Ann",
    }
    return {name: value for name, value in (base | changes).items() if value is not None}


def signed(body: dict[str, Any], key: Any = KEY, alg: str = "RS256") -> str:
    return jwt.encode({"alg": alg, "kid": key.kid} if key.kid else {"alg": alg}, body, key)


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def test_a_good_token_names_the_person() -> None:
    identity = validate(signed(claims()), JWKS, EXPECTED, NOW)
    assert (identity.issuer, identity.subject, identity.email) == (ISSUER, "user-1", "ann@example.com")
    assert identity.email_verified is True and identity.name == "Ann"
    # Sixty seconds of clock difference are allowed, not more.
    assert validate(signed(claims(exp=NOW - 30)), JWKS, EXPECTED, NOW).subject == "user-1"
    # An audience list naming us, with us as the authorised party.
    assert validate(signed(claims(aud=["botyard", "other"], azp="botyard")), JWKS, EXPECTED, NOW)
    # Only a JSON true verifies an email.
    assert validate(signed(claims(email_verified="true")), JWKS, EXPECTED, NOW).email_verified is False


def _tampered() -> str:
    header, _, signature = signed(claims()).split(".")
    return ".".join((header, _b64(claims(email="mallory@example.com")), signature))


def _unsigned() -> str:
    return ".".join((_b64({"alg": "none"}), _b64(claims()), ""))


def _hmac_with_the_public_key() -> str:
    public = json.dumps(JWKS["keys"][0]).encode()
    return signed(claims(), OctKey.import_key(public), "HS256")


@pytest.mark.parametrize(
    ("token", "why"),
    [
        (_tampered, "payload changed after signing"),
        (_unsigned, "alg none"),
        (_hmac_with_the_public_key, "HMAC keyed with the public key (algorithm confusion)"),
        (lambda: signed(claims(exp=NOW - 120)), "expired"),
        (lambda: signed(claims(iat=NOW + 600)), "issued in the future"),
        (lambda: signed(claims(iss="https://evil.example.com")), "another issuer"),
        (lambda: signed(claims(aud="another-client")), "another audience"),
        (lambda: signed(claims(aud=["another-client", "botyard"])), "several audiences and no azp"),
        (lambda: signed(claims(azp="another-client")), "another authorised party"),
        (lambda: signed(claims(nonce="n-other")), "another sign-in's nonce"),
        (lambda: signed(claims(nonce=None)), "no nonce"),
        (lambda: signed(claims(exp=None)), "no expiry"),
        (lambda: signed(claims(sub="x" * 256)), "subject too long"),
        (lambda: "not.a.token", "garbage"),
    ],
)
def test_a_bad_token_is_refused(token: Any, why: str) -> None:
    with pytest.raises(InvalidToken):
        validate(token(), JWKS, EXPECTED, NOW)


def test_a_key_not_in_the_jwks_asks_for_a_fresh_read() -> None:
    with pytest.raises(UnknownKey):
        validate(signed(claims(), OTHER), JWKS, EXPECTED, NOW)
    both = KeySet([KEY, OTHER]).as_dict(private=False)
    assert validate(signed(claims(), OTHER), both, EXPECTED, NOW).subject == "user-1"


def test_a_provider_that_signs_only_with_hmac_is_refused() -> None:
    hmac_only = Expected(issuer=ISSUER, client_id="botyard", nonce="n-123", algorithms=["HS256"])
    with pytest.raises(InvalidToken, match="none of"):
        validate(signed(claims()), JWKS, hmac_only, NOW)


# --- the sign-in cookie ------------------------------------------------------------------------------------------

COOKIE_KEY = flow.cookie_key("client secret")


def test_the_cookie_brings_back_the_sign_in_it_started() -> None:
    begun = flow.begin(NOW)
    assert flow.opened(flow.seal(begun, COOKIE_KEY), COOKIE_KEY, NOW + flow.LIFETIME) == begun
    flow.check_state(begun, begun.state)
    url = flow.authorization_url("https://id.example.com/authorize", begun, client_id="c", redirect_uri="https://b/cb")
    challenge = base64.urlsafe_b64encode(hashlib.sha256(begun.verifier.encode()).digest()).decode().rstrip("=")
    assert f"code_challenge={challenge}" in url and "code_challenge_method=S256" in url
    assert f"nonce={begun.nonce}" in url and begun.verifier not in url
    assert len({begun.state, begun.nonce, flow.begin(NOW).state}) == 3 and len(begun.verifier) >= 43


@pytest.mark.parametrize(
    ("cookie", "now"),
    [
        (None, NOW),
        ("", NOW),
        (flow.seal(flow.begin(NOW), flow.cookie_key("another secret")), NOW),  # not signed by this service
        (flow.seal(flow.begin(NOW), COOKIE_KEY)[:-2] + "xx", NOW),  # signature altered
        (_b64({"state": "s", "nonce": "n", "verifier": "v", "started": NOW}) + ".", NOW),  # unsigned
        (flow.seal(flow.begin(NOW), COOKIE_KEY), NOW + flow.LIFETIME + 1),  # too old
        (flow.seal(flow.begin(NOW + 60), COOKIE_KEY), NOW),  # from the future
    ],
)
def test_a_cookie_this_service_did_not_sign_or_too_old_is_refused(cookie: str | None, now: int) -> None:
    with pytest.raises(SignInRefused) as refused:
        flow.opened(cookie, COOKIE_KEY, now)
    assert refused.value.refusal is Refusal.EXPIRED


@pytest.mark.parametrize("state", [None, "", "another-state"])
def test_another_state_is_refused(state: str | None) -> None:
    with pytest.raises(SignInRefused) as refused:
        flow.check_state(flow.begin(NOW), state)
    assert refused.value.refusal is Refusal.EXPIRED


# --- the discovery document --------------------------------------------------------------------------------------

DISCOVERY = f"{ISSUER}/.well-known/openid-configuration"


def document(**changes: Any) -> dict[str, Any]:
    base = {
        "issuer": ISSUER,
        "authorization_endpoint": f"{ISSUER}/authorize",
        "token_endpoint": f"{ISSUER}/token",
        "jwks_uri": f"{ISSUER}/jwks",
    }
    return {name: value for name, value in (base | changes).items() if value is not None}


def test_a_sound_document_is_read_with_the_spec_defaults() -> None:
    metadata = parse_metadata(DISCOVERY, document())
    assert metadata.algorithms == ("RS256",) and metadata.basic_auth is True
    posted = parse_metadata(DISCOVERY, document(token_endpoint_auth_methods_supported=["client_secret_post"]))
    assert posted.basic_auth is False
    local = "http://127.0.0.1:9400"
    loopback = {"issuer": local, "authorization_endpoint": f"{local}/a", "token_endpoint": f"{local}/t"}
    assert parse_metadata(f"{local}/.well-known/openid-configuration", document(**loopback, jwks_uri=f"{local}/j"))


@pytest.mark.parametrize(
    "changes",
    [
        {"issuer": "https://evil.example.com"},  # not the issuer its URL names (Discovery 4.3)
        {"issuer": None},
        {"token_endpoint": "http://id.example.com/token"},  # the secret would travel in clear
        {"jwks_uri": None},
        {"token_endpoint_auth_methods_supported": ["private_key_jwt"]},
    ],
)
def test_an_unusable_document_is_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(SignInRefused) as refused:
        parse_metadata(DISCOVERY, document(**changes))
    assert refused.value.refusal is Refusal.PROVIDER_ERROR
