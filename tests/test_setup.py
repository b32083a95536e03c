"""First run without a terminal: `botyard serve` prints a one-time setup link while no account exists; its token
(and nothing else) creates the first account and its key, once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
from starlette.testclient import TestClient

from botyard.accounts import setup
from botyard.config import Settings
from tests.support.api import Api, assert_error
from tests.support.servers import free_port


def test_the_setup_token_creates_the_first_account_once(client: TestClient, settings: Settings) -> None:
    token = setup.offer(settings)
    assert setup.offer(settings) == token  # offered again until used
    assert oct(setup.token_path(settings).stat().st_mode & 0o777) == "0o600"
    refused = client.post("/api/v1/setup", json={"token": "not-the-token", "email": "owner@example.com"})
    assert_error(refused, 403, "setup_refused")
    assert_error(client.get("/api/v1/chatbots", headers={"Authorization": "Bearer by_nothing"}), 401, "unauthorized")

    created = client.post("/api/v1/setup", json={"token": token, "email": "Owner@Example.com"})
    assert created.status_code == 200, created.text
    body = created.json()
    assert body["email"] == "owner@example.com" and body["key"].startswith("by_")
    assert client.get("/api/v1/chatbots", headers={"Authorization": f"Bearer {body['key']}"}).status_code == 200
    assert not setup.token_path(settings).exists()
    again = client.post("/api/v1/setup", json={"token": token, "email": "intruder@example.com"})
    assert_error(again, 409, "setup_done")


def test_no_setup_once_an_account_exists(alice: Api, client: TestClient, settings: Settings) -> None:
    token = setup.offer(settings)
    try:
        assert_error(client.post("/api/v1/setup", json={"token": token, "email": "x@example.com"}), 409, "setup_done")
    finally:
        setup.token_path(settings).unlink(missing_ok=True)


def test_serve_prints_the_setup_link_only_while_there_is_no_account(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOTYARD_")}
    env |= {"BOTYARD_DATA_DIR": str(tmp_path), "BOTYARD_EMBEDDER": "none"}
    with serving(env) as (base, server):
        assert server.stderr is not None
        link = next(line for line in server.stderr if "/dashboard#setup=" in line).strip()
        assert link.startswith(f"{base}/dashboard#setup=")
        wait_ready(base)
        created = httpx.post(f"{base}/api/v1/setup", json={"token": link.split("#setup=", 1)[1], "email": "o@x.io"})
        assert created.status_code == 200, created.text
    with serving(env) as (base, server):
        wait_ready(base)
        server.terminate()
        assert server.stderr is not None
        assert "#setup=" not in server.stderr.read()  # an account exists: no link


@contextmanager
def serving(env: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    command = [sys.executable, "-m", "botyard", "serve", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        yield f"http://127.0.0.1:{port}", server
    finally:
        server.terminate()
        server.wait(timeout=20)
        if server.stderr is not None:
            server.stderr.close()


def wait_ready(base: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/healthz").status_code == 200:
                return
        except httpx.TransportError:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
