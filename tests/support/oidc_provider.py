"""A real OpenID provider on loopback for the single sign-on tests: `oidc-provider-mock` as a child process (its own
process: it imports authlib's deprecated JOSE module, whose warning the suite turns into an error).

The test chooses who signs in and their claims (`user`), then plays the person at the provider's page without a
browser (`authorize` posts its form and returns where the provider sends the browser back).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx

from tests.support.processes import spawn, stop
from tests.support.servers import free_port
from tests.support.waiting import START, wait_for


class MockProvider:
    def __init__(self, *options: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "oidc_provider_mock", "--port", str(self.port), "--require-nonce", *options]
        self.process = spawn(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def ready() -> bool:
            assert self.process.poll() is None, "the OpenID provider exited"
            try:
                return httpx.get(self.discovery_url, timeout=10).status_code == 200
            except httpx.TransportError:
                return False

        wait_for(ready, START, what="the OpenID provider answering its discovery URL")

    @property
    def discovery_url(self) -> str:
        return f"{self.base}/.well-known/openid-configuration"

    def user(self, sub: str, **claims: Any) -> None:
        """The provider's account `sub`, with these claims (email, email_verified, name...)."""
        response = httpx.put(f"{self.base}/users/{sub}", json=claims, timeout=10)
        assert response.status_code == 204, response.text

    def authorize(self, authorization_url: str, sub: str | None = None) -> str:
        """Sign in as `sub` at the provider's page (None: press Deny); where the provider sends the browser."""
        form = {"sub": sub} if sub is not None else {"action": "deny"}
        response = httpx.post(authorization_url, data=form, timeout=10)
        assert response.status_code in (302, 303), (response.status_code, response.text[:500])
        return response.headers["location"]

    def close(self) -> None:
        stop(self.process)


@contextmanager
def mock_provider(*options: str) -> Iterator[MockProvider]:
    provider = MockProvider(*options)
    try:
        yield provider
    finally:
        provider.close()


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
