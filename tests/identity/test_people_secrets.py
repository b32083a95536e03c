"""Passwords, session tokens and link tokens never appear in logs, API replies or exports, nor in plain text in the
database. The one exception is by design: the reply that makes an invitation or a reset link carries that link, once,
to the owner or admin who passes it on (as a new API key is shown once)."""

from __future__ import annotations

import logging

import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.accounts import setup
from tests.support.database import Db, database_dump
from tests.support.people import SAME_ORIGIN, Person

OWNER_PASSWORD = "owner's long password"
INVITED_PASSWORD = "invited person's password"
NEW_PASSWORD = "the reset password here"


class Recorder:
    """Every reply of the flow, its headers but the cookies the sign-ins set (they carry the session on purpose)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.seen: list[str] = []

    def keep(self, response: object) -> object:
        headers = [f"{k}: {v}" for k, v in response.headers.multi_items() if k.lower() != "set-cookie"]  # type: ignore[attr-defined]
        self.seen.append("\n".join(headers) + "\n" + response.text)  # type: ignore[attr-defined]
        self.client.cookies.clear()
        return response

    def person(self, response: object) -> Person:
        assert response.status_code == 200, response.text  # type: ignore[attr-defined]
        cookies = response.cookies  # type: ignore[attr-defined]
        return Person(self.client, cookies["botyard_session"], cookies["botyard_csrf"], response.json())  # type: ignore[attr-defined]


def test_no_secret_reaches_logs_replies_or_exports(
    client: TestClient, db: Db, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    record = Recorder(client)
    setup_token = setup.offer(settings)
    body = {"token": setup_token, "email": "owner@example.com", "name": "Olive", "password": OWNER_PASSWORD}
    owner = record.person(record.keep(client.post("/api/v1/setup", json=body, headers=SAME_ORIGIN)))
    bot = owner.ok(record.keep(owner.post("/chatbot/create", {"name": "bot", "visibility": "public"})))["uuid"]

    invited = owner.ok(owner.post("/account/invitation/create", {"email": "ivy@example.com", "role": "editor"}))
    invite_token = invited["link"].split("#invite=", 1)[1]  # the one reply that shows it (not recorded)
    accept = {"token": invite_token, "name": "Ivy", "password": INVITED_PASSWORD}
    ivy = record.person(record.keep(client.post("/api/v1/auth/invitation/accept", json=accept, headers=SAME_ORIGIN)))
    made = owner.ok(owner.post(f"/account/member/{ivy.me['user']['uuid']}/reset-link"))
    reset_token = made["link"].split("#reset=", 1)[1]
    reset = {"token": reset_token, "password": NEW_PASSWORD}
    ivy_again = record.person(record.keep(client.post("/api/v1/auth/password-reset", json=reset, headers=SAME_ORIGIN)))
    wrong = {"email": "ivy@example.com", "password": INVITED_PASSWORD}
    record.keep(client.post("/api/v1/auth/sign-in", json=wrong, headers=SAME_ORIGIN))
    right = {"email": "ivy@example.com", "password": NEW_PASSWORD}
    ivy_third = record.person(record.keep(client.post("/api/v1/auth/sign-in", json=right, headers=SAME_ORIGIN)))

    session = owner.ok(record.keep(owner.post(f"/chatbot/{bot}/session/create")))["uuid"]
    record.keep(owner.post(f"/session/{session}/message/non-stream", {"query": "hello"}))
    for path in (
        "/account/members",
        "/account/invitations",
        "/account/api-keys",
        "/auth/me",
        f"/chatbot/{bot}/sessions/export",
        f"/session/{session}/export",
        f"/session/{session}/messages",
    ):
        assert record.keep(owner.get(path)).status_code == 200, path  # type: ignore[attr-defined]
    record.keep(ivy_third.post("/auth/sign-out-everywhere"))
    record.keep(owner.post("/auth/sign-out"))

    people = (owner, ivy, ivy_again, ivy_third)
    secrets = {
        "a password": [OWNER_PASSWORD, INVITED_PASSWORD, NEW_PASSWORD],
        "a session token": [p.session for p in people] + [p.csrf for p in people],
        "a link token": [setup_token, invite_token, reset_token],
    }
    places = {"the logs": caplog.text, "a reply": "\n".join(record.seen), "the database": database_dump(settings)}
    found = [
        f"{kind} in {place}"
        for kind, values in secrets.items()
        for place, text in places.items()
        for v in values
        if v in text
    ]
    assert not found, found
    assert len(record.seen) > 15 and "Ivy" in places["a reply"]  # the replies were there to search
