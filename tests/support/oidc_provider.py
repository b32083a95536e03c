"""A real OpenID provider on loopback for the single sign-on tests: `oidc-provider-mock` as a child process (its own
process: it imports authlib's deprecated JOSE module, whose warning the suite turns into an error).

The test chooses who signs in and their claims (`user`), then plays the person at the provider's page without a
browser (`authorize` posts its form and returns where the provider sends the browser back).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx

from tests.support.processes import last_lines, spawn, stop, written_lines
from tests.support.waiting import START, wait_for

RUNNING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+) ")
"""The line of uvicorn (which serves the provider) that says which port it bound: it is started on port 0."""


class MockProvider:
    def __init__(self, *options: str) -> None:
        descriptor, name = tempfile.mkstemp(prefix="oidc-provider-", suffix=".log")
        self.stderr = Path(name)
        command = [sys.executable, "-m", "oidc_provider_mock", "--port", "0", "--require-nonce", *options]
        with os.fdopen(descriptor, "wb") as sink:
            self.process = spawn(command, stdout=subprocess.DEVNULL, stderr=sink)

        def bound() -> int | None:
            assert self.process.poll() is None, f"the OpenID provider exited:\n{last_lines(self.stderr)}"
            found = (RUNNING.search(line) for line in written_lines(self.stderr))
            return next((int(match[1]) for match in found if match), None)

        def ready() -> bool:
            assert self.process.poll() is None, f"the OpenID provider exited:\n{last_lines(self.stderr)}"
            try:
                return httpx.get(self.discovery_url, timeout=10).status_code == 200
            except httpx.TransportError:
                return False

        try:
            self.port = wait_for(bound, START, what="the OpenID provider saying which port it listens on")
            self.base = f"http://127.0.0.1:{self.port}"
            wait_for(ready, START, what="the OpenID provider answering its discovery URL")
        except BaseException:
            self.close()
            raise

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
        self.stderr.unlink(missing_ok=True)


@contextmanager
def mock_provider(*options: str) -> Iterator[MockProvider]:
    provider = MockProvider(*options)
    try:
        yield provider
    finally:
        provider.close()


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
