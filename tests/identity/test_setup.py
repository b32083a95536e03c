"""First run without a terminal: `botyard serve` prints a one-time setup link while no account exists; its token
(and nothing else) creates the first account and its key, once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.accounts import setup
from tests.support.api import Api, assert_error
from tests.support.processes import written_lines
from tests.support.servers import Server
from tests.support.waiting import START, wait_for


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


def test_with_a_password_the_setup_makes_the_owner_and_signs_them_in(client: TestClient, settings: Settings) -> None:
    token = setup.offer(settings)
    body = {"token": token, "email": "Owner@Example.com", "name": "Olive", "password": "a long enough password"}
    created = client.post("/api/v1/setup", json=body, headers={"Sec-Fetch-Site": "same-origin"})
    assert created.status_code == 200, created.text
    assert set(created.json()) == {"prefix", "created_at", "revoked_at", "key", "email"}  # the shape of before
    cookies = {name: created.cookies[name] for name in ("botyard_session", "botyard_csrf")}
    client.cookies.clear()
    me = client.get("/api/v1/auth/me", headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
    assert me.status_code == 200, me.text
    assert me.json()["role"] == "owner" and me.json()["user"]["email"] == "owner@example.com"
    assert me.json()["user"]["name"] == "Olive"
    key = created.json()["key"]
    members = client.get("/api/v1/account/members", headers={"Authorization": f"Bearer {key}"}).json()
    assert [(m["email"], m["role"]) for m in members] == [("owner@example.com", "owner")]  # the key's own account
    signed = client.post("/api/v1/auth/sign-in", json={"email": "owner@example.com", "password": body["password"]})
    client.cookies.clear()
    assert signed.status_code == 200


def test_a_short_password_makes_no_account(client: TestClient, settings: Settings) -> None:
    token = setup.offer(settings)
    short = client.post("/api/v1/setup", json={"token": token, "email": "o@example.com", "password": "short"})
    assert_error(short, 422, "validation_error")
    assert setup.token_path(settings).exists()  # the link still works
    assert client.post("/api/v1/setup", json={"token": token, "email": "o@example.com"}).status_code == 200


def test_no_setup_once_an_account_exists(alice: Api, client: TestClient, settings: Settings) -> None:
    token = setup.offer(settings)
    try:
        assert_error(client.post("/api/v1/setup", json={"token": token, "email": "x@example.com"}), 409, "setup_done")
    finally:
        setup.token_path(settings).unlink(missing_ok=True)


def test_serve_prints_the_setup_link_only_while_there_is_no_account(tmp_path: Path) -> None:
    server = Server(Settings(data_dir=tmp_path / "data"))
    first, second = tmp_path / "first.log", tmp_path / "second.log"
    with serving(server, first):
        link = wait_for(lambda: _setup_link(first), START, what="the setup link")
        assert link.startswith(f"{server.base}/dashboard#setup=")
        server.wait_ready()
        token = link.split("#setup=", 1)[1]
        created = httpx.post(f"{server.base}/api/v1/setup", json={"token": token, "email": "o@x.io"})
        assert created.status_code == 200, created.text
    with serving(server, second):
        server.wait_ready()
    assert not _setup_link(second)  # an account exists: no link


@contextmanager
def serving(server: Server, stderr: Path) -> Iterator[None]:
    """`botyard serve` until the block ends, its stderr in a file (complete once the block has ended)."""
    with stderr.open("wb") as sink:
        server.start(wait=False, stderr=sink)
    try:
        yield
    finally:
        server.stop()


def _setup_link(stderr: Path) -> str:
    return next((line.strip() for line in written_lines(stderr) if "#setup=" in line), "")
