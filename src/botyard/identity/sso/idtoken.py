"""The ID token's checks, as one pure function: the signature against the provider's keys (JWKS), then authlib's
checks of an authorization-code ID token (issuer, audience and authorised party, expiry, issue time, nonce).

Only asymmetric algorithms that the provider announces are accepted: never `none`, and never an HMAC one, whose key
would be the client secret (a token "signed" with a public key as its HMAC secret is the classic confusion attack).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

ASYMMETRIC = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
LEEWAY = 60
"""Seconds of clock difference allowed with the provider (expiry, issue time)."""


class InvalidToken(Exception):
    """The ID token failed a check; the message says which (for the log; it holds no token)."""


class UnknownKey(InvalidToken):
    """Signed with a key the JWKS at hand does not have: the provider may have rotated its keys."""


@dataclass(frozen=True)
class Expected:
    issuer: str
    client_id: str
    nonce: str
    algorithms: Sequence[str]
    """The provider's `id_token_signing_alg_values_supported`."""


@dataclass(frozen=True)
class Identity:
    """Who the provider says signed in."""

    issuer: str
    subject: str
    email: str | None
    email_verified: bool
    name: str


def allowed_algorithms(announced: Sequence[str]) -> list[str]:
    """The announced algorithms we accept (RS256 when the provider announces none, as the spec's default)."""
    return [alg for alg in (announced or ["RS256"]) if alg in ASYMMETRIC]


def validate(raw: str, jwks: Mapping[str, Any], expected: Expected, now: int) -> Identity:
    """The identity in the ID token `raw`, or InvalidToken (UnknownKey when its key is not in `jwks`)."""
    algorithms = allowed_algorithms(expected.algorithms)
    if not algorithms:
        raise InvalidToken(f"the provider signs ID tokens only with {list(expected.algorithms)}, none of {ASYMMETRIC}")
    try:
        keys = KeySet.import_key_set(dict(jwks))  # type: ignore[arg-type]
        token = jwt.decode(raw, keys, registry=JWSRegistry(algorithms=algorithms))
    except InvalidKeyIdError as error:
        raise UnknownKey(f"no key of the provider's JWKS signed it ({error})") from None
    except (JoseError, ValueError, TypeError) as error:
        raise InvalidToken(f"its signature or form did not pass: {type(error).__name__} {error}") from None
    options = {
        "iss": {"essential": True, "value": expected.issuer},
        "aud": {"essential": True, "value": expected.client_id},
    }
    claims = CodeIDToken(
        token.claims, token.header, options, {"nonce": expected.nonce, "client_id": expected.client_id}
    )
    try:
        claims.validate(now=now, leeway=LEEWAY)
    except JoseError as error:
        raise InvalidToken(f"its claims did not pass: {type(error).__name__} {error}") from None
    if "nonce" not in token.claims:  # authlib checks a nonce that is there; we sent one, so it must be there
        raise InvalidToken("it carries no nonce")
    return _identity(token.claims)


def _identity(claims: Mapping[str, Any]) -> Identity:
    email = claims.get("email")
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject or len(subject) > 255:
        raise InvalidToken("its subject is missing or longer than 255 characters")
    name = claims.get("name")
    return Identity(
        issuer=str(claims["iss"]),
        subject=subject,
        email=email if isinstance(email, str) and email else None,
        email_verified=claims.get("email_verified") is True,
        name=name.strip()[:200] if isinstance(name, str) else "",
    )
