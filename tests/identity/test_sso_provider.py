"""The provider's side of single sign-on over real loopback HTTP, through the egress client: how the client secret is
sent (HTTP Basic by default, in the form when the provider takes only that), the discovery document and the keys
kept between sign-ins, one fresh read of the keys when the provider signs with a new one, and a token endpoint that
refuses. The provider here is a small one of the test's own, so that it can rotate keys and answer badly at will."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

from botyard.config import Settings
from botyard.egress import EgressClient
from botyard.identity.sso.idtoken import Identity
from botyard.identity.sso.provider import Client, Provider
from botyard.identity.sso.refusals import Refusal, SignInRefused

SECRET = "s3cret:with/odd chars"
ONE = RSAKey.generate_key(2048, parameters={"kid": "one"})
TWO = RSAKey.generate_key(2048, parameters={"kid": "two"})


class Forge:
    """An OpenID provider on loopback whose keys, client authentication and token answers the test sets."""

    def __init__(self) -> None:
        self.keys = [ONE]
        self.signing = ONE
        self.auth_methods: list[str] | None = None
        self.token_status = 200
        self.nonce = "n-1"
        self.hits: Counter[str] = Counter()
        self.token_requests: list[tuple[dict[str, str], str | None]] = []
        forge = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                forge.hits[self.path] += 1
                if self.path == "/.well-known/openid-configuration":
                    self._json(200, forge.document())
                elif self.path == "/jwks":
                    self._json(200, KeySet(forge.keys).as_dict(private=False))
                else:
                    self._json(404, {})

            def do_POST(self) -> None:
                forge.hits[self.path] += 1
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                form = {name: values[0] for name, values in parse_qs(body).items()}
                forge.token_requests.append((form, self.headers.get("Authorization")))
                if forge.token_status != 200:
                    self._json(forge.token_status, {"error": "invalid_grant"})
                    return
                self._json(200, {"access_token": "at", "token_type": "Bearer", "id_token": forge.id_token()})

            def _json(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def document(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "id_token_signing_alg_values_supported": ["RS256"],
        }
        if self.auth_methods is not None:
            document["token_endpoint_auth_methods_supported"] = self.auth_methods
        return document

    def id_token(self) -> str:
        claims = {"iss": self.issuer, "sub": "s-1", "aud": "botyard", "exp": 2_000_000_000, "iat": 1_700_000_000}
        claims |= {"nonce": self.nonce, "email": "ann@example.com", "email_verified": True}
        return jwt.encode({"alg": "RS256", "kid": self.signing.kid}, claims, self.signing)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def forge() -> Iterator[Forge]:
    started = Forge()
    yield started
    started.close()


def sign_ins(forge: Forge, tmp_path: Path, count: int = 1, *, between: Any = None) -> list[Identity]:
    """`count` code exchanges by one Provider (one process), `between(i)` called before each."""

    async def go() -> list[Identity]:
        egress = EgressClient(Settings(data_dir=tmp_path, egress_allowlist=["127.0.0.1"]))
        client = Client(f"{forge.issuer}/.well-known/openid-configuration", "botyard", SECRET, "http://b/cb")
        provider = Provider(client, egress)
        found = []
        for index in range(count):
            if between is not None:
                between(index)
            found.append(await provider.identity(f"code-{index}", "v" * 43, "n-1", 1_800_000_000))
        await egress.aclose()
        return found

    return asyncio.run(go())


def test_the_secret_goes_by_http_basic_unless_the_provider_takes_only_the_form(forge: Forge, tmp_path: Path) -> None:
    assert sign_ins(forge, tmp_path)[0].subject == "s-1"
    form, authorization = forge.token_requests[-1]
    assert form == {"grant_type": "authorization_code", "code": "code-0", "redirect_uri": "http://b/cb"} | {
        "code_verifier": "v" * 43
    }
    assert authorization is not None
    pair = base64.b64decode(authorization.removeprefix("Basic ")).decode()
    assert pair == "botyard:s3cret%3Awith%2Fodd%20chars"  # RFC 6749 2.3.1: each part form-encoded first

    forge.auth_methods = ["client_secret_post"]
    sign_ins(forge, tmp_path)
    form, authorization = forge.token_requests[-1]
    assert authorization is None and form["client_id"] == "botyard" and form["client_secret"] == SECRET


def test_the_document_and_keys_are_kept_and_a_new_key_is_read_once(forge: Forge, tmp_path: Path) -> None:
    def rotate(index: int) -> None:
        if index == 2:  # the provider starts signing with a new key, and publishes both
            forge.keys, forge.signing = [ONE, TWO], TWO

    found = sign_ins(forge, tmp_path, 4, between=rotate)
    assert [identity.subject for identity in found] == ["s-1"] * 4
    assert forge.hits["/.well-known/openid-configuration"] == 1
    assert forge.hits["/jwks"] == 2  # the first sign-in, then once for the new key
    assert forge.hits["/token"] == 4


@pytest.mark.parametrize("status", [400, 500])
def test_a_token_endpoint_that_refuses_is_a_provider_error(forge: Forge, tmp_path: Path, status: int) -> None:
    forge.token_status = status
    with pytest.raises(SignInRefused) as refused:
        sign_ins(forge, tmp_path)
    assert refused.value.refusal is Refusal.PROVIDER_ERROR and f"HTTP {status}" in refused.value.detail
    assert SECRET not in str(refused.value)


def test_a_token_signed_by_a_key_the_provider_does_not_publish_is_invalid(forge: Forge, tmp_path: Path) -> None:
    forge.signing = TWO  # signs with a key its JWKS does not have, even when read afresh
    with pytest.raises(SignInRefused) as refused:
        sign_ins(forge, tmp_path)
    assert refused.value.refusal is Refusal.INVALID_TOKEN
    assert forge.hits["/jwks"] == 2
