"""The provider, through the egress client only: its discovery document, its keys (JWKS) and the code exchange.

The document and the keys are kept for `CACHE_SECONDS` in the process; a token signed by a key we do not have makes
one fresh read of the keys (providers rotate them). The document must name the issuer its URL was read from
(OpenID Connect Discovery 4.3), and its endpoints must use https, or plain http on this machine's loopback only: the
token exchange carries the client secret.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from botyard.egress import EgressClient, EgressError, EgressHTTPError, EgressRefused, EgressTooLarge
from botyard.identity.sso.idtoken import Expected, Identity, InvalidToken, UnknownKey, validate
from botyard.identity.sso.refusals import Refusal, SignInRefused

CACHE_SECONDS = 3600.0
MAX_BYTES = 1024 * 1024
WELL_KNOWN = "/.well-known/openid-configuration"
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class Metadata:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    algorithms: tuple[str, ...]
    basic_auth: bool
    """client_secret_basic (the default), else client_secret_post."""


@dataclass(frozen=True)
class Client:
    discovery_url: str
    client_id: str
    client_secret: str
    redirect_uri: str


def _secure(url: object, what: str) -> str:
    if not isinstance(url, str):
        raise SignInRefused(Refusal.PROVIDER_ERROR, f"the discovery document has no {what}")
    parts = urlsplit(url)
    if parts.scheme == "https" or (parts.scheme == "http" and (parts.hostname or "") in _LOOPBACK):
        return url
    raise SignInRefused(Refusal.PROVIDER_ERROR, f"its {what} {url[:200]!r} is not https")


def parse_metadata(discovery_url: str, document: Mapping[str, Any]) -> Metadata:
    issuer = document.get("issuer")
    if not isinstance(issuer, str) or issuer.rstrip("/") + WELL_KNOWN != discovery_url:
        raise SignInRefused(Refusal.PROVIDER_ERROR, f"its issuer {issuer!r} is not the discovery URL's")
    methods = document.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    if "client_secret_basic" not in methods and "client_secret_post" not in methods:
        raise SignInRefused(Refusal.PROVIDER_ERROR, f"it takes a client secret in none of the usual ways ({methods})")
    algorithms = document.get("id_token_signing_alg_values_supported") or ["RS256"]
    return Metadata(
        issuer=issuer,
        authorization_endpoint=_secure(document.get("authorization_endpoint"), "authorization_endpoint"),
        token_endpoint=_secure(document.get("token_endpoint"), "token_endpoint"),
        jwks_uri=_secure(document.get("jwks_uri"), "jwks_uri"),
        algorithms=tuple(str(alg) for alg in algorithms),
        basic_auth="client_secret_basic" in methods,
    )


class Provider:
    """One configured provider, its document and keys cached. Built once per process (the app's lifespan)."""

    def __init__(self, client: Client, egress: EgressClient, clock: Callable[[], float] = time.monotonic) -> None:
        _secure(client.discovery_url, "discovery URL")
        self.client = client
        self._egress = egress
        self._clock = clock
        self._metadata: tuple[float, Metadata] | None = None
        self._jwks: tuple[float, dict[str, Any]] | None = None

    async def metadata(self) -> Metadata:
        if self._metadata is None or self._clock() - self._metadata[0] > CACHE_SECONDS:
            document = await self._json(self.client.discovery_url)
            self._metadata = (self._clock(), parse_metadata(self.client.discovery_url, document))
        return self._metadata[1]

    async def jwks(self, *, fresh: bool = False) -> dict[str, Any]:
        if fresh or self._jwks is None or self._clock() - self._jwks[0] > CACHE_SECONDS:
            keys = await self._json((await self.metadata()).jwks_uri)
            if not isinstance(keys.get("keys"), list):
                raise SignInRefused(Refusal.PROVIDER_ERROR, "its JWKS has no keys")
            self._jwks = (self._clock(), keys)
        return self._jwks[1]

    async def exchange(self, code: str, verifier: str) -> str:
        """The ID token the token endpoint gives for the code (with the PKCE verifier and the client's secret)."""
        metadata = await self.metadata()
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": self.client.redirect_uri}
        form["code_verifier"] = verifier
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        if metadata.basic_auth:  # RFC 6749 2.3.1: each part form-encoded first
            pair = f"{quote(self.client.client_id, safe='')}:{quote(self.client.client_secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        else:
            form |= {"client_id": self.client.client_id, "client_secret": self.client.client_secret}
        reply = await self._json(metadata.token_endpoint, content=urlencode(form).encode(), headers=headers)
        id_token = reply.get("id_token")
        if not isinstance(id_token, str):
            raise SignInRefused(Refusal.PROVIDER_ERROR, "the token endpoint gave no id_token")
        return id_token

    async def identity(self, code: str, verifier: str, nonce: str, now: int) -> Identity:
        """Who the code names: exchanged for an ID token, which is checked (`idtoken`) against the keys, read afresh
        once if it was signed with a key not seen yet."""
        raw = await self.exchange(code, verifier)
        metadata = await self.metadata()
        client_id = self.client.client_id
        expected = Expected(issuer=metadata.issuer, client_id=client_id, nonce=nonce, algorithms=metadata.algorithms)
        try:
            try:
                return validate(raw, await self.jwks(), expected, now)
            except UnknownKey:
                return validate(raw, await self.jwks(fresh=True), expected, now)
        except InvalidToken as invalid:
            raise SignInRefused(Refusal.INVALID_TOKEN, str(invalid)) from None

    async def _json(self, url: str, **post: Any) -> dict[str, Any]:
        try:
            if post:
                result = await self._egress.fetch(url, method="POST", max_bytes=MAX_BYTES, **post)
            else:
                result = await self._egress.fetch(url, headers={"Accept": "application/json"}, max_bytes=MAX_BYTES)
        except EgressRefused as error:
            raise SignInRefused(Refusal.EGRESS_REFUSED, f"{error.reason}: {error.url}") from None
        except EgressHTTPError as error:
            raise SignInRefused(Refusal.PROVIDER_ERROR, f"{error.url} answered HTTP {error.result.status}") from None
        except EgressTooLarge as error:
            raise SignInRefused(Refusal.PROVIDER_ERROR, f"{error.url}: {error.reason}") from None
        except EgressError as error:
            raise SignInRefused(Refusal.UNREACHABLE, f"{error.reason}: {error.url}") from None
        try:
            document = json.loads(result.body)
        except ValueError:
            document = None
        if not isinstance(document, dict):
            raise SignInRefused(Refusal.PROVIDER_ERROR, f"{url[:200]} did not answer a JSON object")
        return document
