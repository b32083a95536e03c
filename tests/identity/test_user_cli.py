"""`botyard user reset-link` and `botyard user invite`: the links, printed, for a service without a mail server
(and the way an account made by `botyard key create` gets its first owner)."""

from __future__ import annotations

from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import Role
from tests.support.api import assert_error
from tests.support.cli import botyard
from tests.support.database import Db
from tests.support.people import PASSWORD, SAME_ORIGIN, add_person, sign_in

NEW_PASSWORD = "another long password"


def test_reset_link_prints_a_link_that_works_once(client: TestClient, db: Db, settings: Settings) -> None:
    add_person(db, "acme@example.com", "owner@example.com", Role.OWNER)
    result = botyard(
        settings, "user", "reset-link", "--email", "Owner@Example.com", "--base-url", "https://bots.example"
    )
    assert result.returncode == 0, result.stderr
    (link,) = result.stdout.splitlines()
    assert link.startswith("https://bots.example/dashboard#reset=")
    body = {"token": link.split("#reset=", 1)[1], "password": NEW_PASSWORD}
    assert client.post("/api/v1/auth/password-reset", json=body, headers=SAME_ORIGIN).status_code == 200
    client.cookies.clear()
    assert_error(client.post("/api/v1/auth/password-reset", json=body, headers=SAME_ORIGIN), 410, "link_invalid")
    assert sign_in(client, "owner@example.com", NEW_PASSWORD).me["role"] == "owner"
    assert_error(
        client.post("/api/v1/auth/sign-in", json={"email": "owner@example.com", "password": PASSWORD}),
        401,
        "signin_failed",
    )


def test_reset_link_for_nobody_fails_plainly(client: TestClient, settings: Settings) -> None:
    result = botyard(settings, "user", "reset-link", "--email", "nobody@example.com")
    assert result.returncode != 0 and "Member not found" in result.stderr and not result.stdout


def test_invite_gives_a_key_made_account_its_owner(
    client: TestClient, settings: Settings, issued_keys: list[str]
) -> None:
    key = botyard(settings, "key", "create", "--email", "shop@example.com").stdout.strip()
    issued_keys.append(key)
    bot = client.post("/api/v1/chatbot/create", json={"name": "shop bot"}, headers={"Authorization": f"Bearer {key}"})
    result = botyard(settings, "user", "invite", "--account-email", "shop@example.com", "--email", "ann@example.com")
    assert result.returncode == 0, result.stderr
    token = result.stdout.strip().split("#invite=", 1)[1]
    body = {"token": token, "name": "Ann", "password": NEW_PASSWORD}
    accepted = client.post("/api/v1/auth/invitation/accept", json=body, headers=SAME_ORIGIN)
    client.cookies.clear()
    assert accepted.status_code == 200 and accepted.json()["role"] == "owner", accepted.text
    ann = sign_in(client, "ann@example.com", NEW_PASSWORD)
    assert [b["uuid"] for b in ann.ok(ann.get("/chatbots"))] == [bot.json()["uuid"]]
