"""The audit log through the API: each change (chatbot, source, key, member) and each sign-in is recorded with who
did it, their role, the client's address and user agent; only owners and admins read it, only their account's; no
secret ever reaches it or its exports; its CSV cannot smuggle a formula into a spreadsheet."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.keys.key_format import display_prefix
from botyard.main import create_app
from botyard.models import Role
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.people import PASSWORD, SAME_ORIGIN, Person, add_person, person, sign_in

ACME = "acme@example.com"
PROXY = ("203.0.113.9", 50000)
CLIENT = "198.51.100.23"
AGENT = "Mozilla/5.0 (audit test) " + "x" * 400


def events(reader: Person | Api, query: str = "") -> list[dict[str, Any]]:
    page: dict[str, Any] = reader.ok(reader.get(f"/account/audit{query}"))
    return list(page["events"])


def what(found: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(event["action"], event["object_type"], event["object_uuid"]) for event in found]


@pytest.fixture
def proxied(settings: Settings, fake_dns: FakeDns, client: TestClient) -> Iterator[TestClient]:
    """Another app on the test database, behind a trusted proxy whose `X-Forwarded-For` names the client."""
    app = create_app(settings.model_copy(update={"trusted_proxies": ["203.0.113.0/24"]}), resolver=fake_dns)
    with TestClient(app, client=PROXY, raise_server_exceptions=False) as behind:
        yield behind


def test_a_persons_changes_are_recorded_with_their_role_and_address(proxied: TestClient) -> None:
    owner = person(proxied, Db(proxied), ACME, "owner@example.com", Role.OWNER)
    erin = add_person(Db(proxied), ACME, "erin@example.com", Role.VIEWER)
    headers = {"X-Forwarded-For": f"192.0.2.1, {CLIENT}", "User-Agent": AGENT}

    def post(path: str, body: Any = None) -> Any:
        return owner.ok(owner.post(path, body, headers=headers))

    bot = post("/chatbot/create", {"name": "Support bot"})["uuid"]
    post(f"/chatbot/{bot}/update", {"name": "Help bot"})
    source = post(f"/chatbot/{bot}/data-source/qa", {"question": "Opening hours?", "answer": "9 to 5."})["uuid"]
    post(f"/data-source/{source}/update", {"title": "Hours"})
    owner.ok(owner.delete(f"/data-source/{source}/delete", headers=headers))
    key = post("/account/api-key/create", {"name": "Zapier"})
    post(f"/account/api-key/{key['prefix']}/revoke")
    post(f"/account/member/{erin}/role", {"role": "editor"})
    post(f"/account/member/{erin}/remove")
    owner.ok(owner.delete(f"/chatbot/{bot}/delete", headers=headers))
    assert_error(owner.post("/chatbot/nothing/update", {"name": "x"}, headers=headers), 404, "not_found")  # no event

    found = events(owner)
    assert what(found) == [
        ("deleted", "chatbot", bot),
        ("deleted", "member", erin),
        ("updated", "member", erin),
        ("revoked", "key", key["prefix"]),
        ("created", "key", key["prefix"]),
        ("deleted", "source", source),
        ("updated", "source", source),
        ("created", "source", source),
        ("updated", "chatbot", bot),
        ("created", "chatbot", bot),
        ("signed_in", "session", owner.me["user"]["uuid"]),
    ]
    for event in found[:-1]:
        assert event["actor"] == {
            "user_uuid": owner.me["user"]["uuid"],
            "email": "owner@example.com",
            "key_prefix": "",
            "name": "owner",
            "role": "owner",
        }
        assert event["address"] == CLIENT and event["user_agent"] == AGENT[:200]
    summaries = [event["summary"] for event in found]
    assert summaries[1:5] == [
        "member deleted",
        "member updated (role): erin@example.com as editor",
        "key revoked: Zapier",
        "key created: Zapier",
    ]
    assert summaries[-2] == "chatbot created: Support bot" and summaries[-3] == "chatbot updated: Help bot"
    assert found[-1]["address"] == PROXY[0]  # signed in straight, without the header


def test_an_api_key_is_recorded_by_its_prefix(alice: Api, bob: Api) -> None:
    bot = alice.chatbot()["uuid"]
    tag = alice.ok(alice.post(f"/chatbot/{bot}/source-tag/create", {"name": "docs", "color": "#336699"}))["uuid"]
    bob.chatbot("Bob's bot")
    found = events(alice)
    assert what(found) == [("created", "tag", tag), ("created", "chatbot", bot)]
    assert found[0]["actor"] == {
        "user_uuid": None,
        "email": "",
        "key_prefix": display_prefix(alice.key),
        "name": "",
        "role": "admin",
    }
    assert found[0]["address"] == "unknown"  # the test transport has no address
    assert "Bob's bot" not in json.dumps(found)  # another account's events never show
    exported = alice.get("/account/audit/export?format=json").text
    assert bot in exported and "Bob's bot" not in exported


def test_only_owners_and_admins_read_the_log(client: TestClient, db: Db) -> None:
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    admin.ok(admin.post("/chatbot/create", {"name": "Bot"}))
    assert len(events(admin)) == 2  # signed in, created
    for role in (Role.VIEWER, Role.EDITOR, Role.OPERATOR):
        reader = person(client, db, ACME, f"{role}@example.com", role)
        assert_error(reader.get("/account/audit"), 403, "forbidden_role")
        assert_error(reader.get("/account/audit/export?format=csv"), 403, "forbidden_role")
    other = person(client, db, "other@example.com", "owner@other.example.com", Role.OWNER)
    assert [event["actor"]["email"] for event in events(other)] == ["owner@other.example.com"]
    assert "admin@example.com" not in other.get("/account/audit/export?format=csv").text


def test_sign_ins_and_links_are_recorded_and_no_secret_is(client: TestClient, db: Db, issued_keys: list[str]) -> None:
    owner = person(client, db, ACME, "owner@example.com", Role.OWNER)
    for email in ("owner@example.com", "nobody@example.com"):
        body = {"email": email, "password": "not it at all"}
        assert client.post("/api/v1/auth/sign-in", json=body, headers=SAME_ORIGIN).status_code == 401
    key = owner.ok(owner.post("/account/api-key/create", {"name": "nightly"}))["key"]
    issued_keys.append(key)
    invited = owner.ok(owner.post("/account/invitation/create", {"email": "erin@example.com", "role": "editor"}))
    token = invited["link"].split("#invite=", 1)[1]
    new_password = "erin's own long password"
    body = {"token": token, "name": "Erin", "password": new_password}
    assert client.post("/api/v1/auth/invitation/accept", json=body, headers=SAME_ORIGIN).status_code == 200
    client.cookies.clear()
    erin = sign_in(client, "erin@example.com", new_password)
    reset = owner.ok(owner.post(f"/account/member/{erin.me['user']['uuid']}/reset-link"))
    reset_token = reset["link"].split("#reset=", 1)[1]
    body = {"token": reset_token, "password": "another long password"}
    assert client.post("/api/v1/auth/password-reset", json=body, headers=SAME_ORIGIN).status_code == 200
    client.cookies.clear()
    owner.ok(owner.post("/auth/sign-out"))

    signed_out = sign_in(client, "owner@example.com")  # the owner's first session ended: read with a new one
    found = events(signed_out, "?limit=200")
    actions = [(event["action"], event["actor"]["email"], event["actor"]["role"]) for event in reversed(found)]
    assert actions == [
        ("signed_in", "owner@example.com", "owner"),
        ("signin_failed", "owner@example.com", ""),  # the unknown email is in no account's log
        ("created", "owner@example.com", "owner"),  # the key
        ("created", "owner@example.com", "owner"),  # the invitation
        ("invitation_accepted", "erin@example.com", "editor"),
        ("signed_in", "erin@example.com", "editor"),
        ("signed_in", "erin@example.com", "editor"),
        ("updated", "owner@example.com", "owner"),  # the reset link
        ("password_reset", "erin@example.com", "editor"),
        ("signed_in", "erin@example.com", "editor"),
        ("signed_out", "owner@example.com", "owner"),
        ("signed_in", "owner@example.com", "owner"),
    ]
    assert found[1]["object_uuid"] == owner.me["user"]["uuid"]  # whose session ended
    texts = [
        json.dumps(found),
        signed_out.get("/account/audit/export?format=csv").text,
        signed_out.get("/account/audit/export?format=json").text,
    ]
    secrets = [key, token, reset_token, PASSWORD, new_password, "another long password", "not it at all"]
    for text in texts:
        assert [secret for secret in secrets if secret in text] == []
        assert signed_out.session not in text and signed_out.csrf not in text


def test_the_csv_export_defuses_formulas(make_api: Callable[[str], Api], issued_keys: list[str]) -> None:
    owner = make_api(ACME)
    made = owner.ok(owner.post("/account/api-key/create", {"name": '=HYPERLINK("http://evil")'}))
    issued_keys.append(made["key"])
    headers = {"Authorization": f"Bearer {made['key']}", "User-Agent": "@SUM(1)"}
    created = owner.client.post("/api/v1/chatbot/create", json={"name": "+1 bot"}, headers=headers)
    assert created.status_code == 200, created.text
    response = owner.get("/account/audit/export?format=csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"].startswith('attachment; filename="audit-')
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [row["action"] for row in rows] == ["created", "created"]  # newest first: the chatbot, the key
    assert rows[0]["actor_name"] == '\'=HYPERLINK("http://evil")'
    assert rows[0]["user_agent"] == "'@SUM(1)"
    assert rows[0]["summary"] == "chatbot created: +1 bot"  # starts with a word: left as it is
    assert rows[1]["summary"] == 'key created: =HYPERLINK("http://evil")'
    assert not [cell for row in rows for cell in row.values() if cell.startswith(("=", "+", "-", "@"))]
    assert json.loads(owner.get("/account/audit/export?format=json").text)[0]["actor"]["name"].startswith("=")


def test_filters_and_pages(alice: Api, make_api: Callable[[str], Api], db: Db) -> None:
    bots = [alice.chatbot(f"Bot {n}")["uuid"] for n in range(3)]
    tag = alice.ok(alice.post(f"/chatbot/{bots[0]}/source-tag/create", {"name": "docs", "color": "#336699"}))["uuid"]
    first = events(alice, "?limit=2")
    page = alice.ok(alice.get("/account/audit?limit=2&offset=2"))
    assert what(first) + what(page["events"]) == [
        ("created", "tag", tag),
        *[("created", "chatbot", bot) for bot in reversed(bots)],
    ]
    assert page["more"] is False and alice.ok(alice.get("/account/audit?limit=2"))["more"] is True
    assert what(events(alice, "?object_type=tag")) == [("created", "tag", tag)]
    assert len(events(alice, f"?actor={display_prefix(alice.key)}")) == 4
    assert events(alice, "?actor=someone@example.com") == []
    moment = events(alice)[-1]["at"]
    assert len(events(alice, f"?until={moment}")) >= 1 and events(alice, "?since=2999-01-01T00:00:00Z") == []
    assert_error(alice.get("/account/audit?object_type=spaceship"), 422, "validation_error")
    exported = alice.get("/account/audit/export?format=json&object_type=chatbot").json()
    assert [event["object_uuid"] for event in exported] == list(reversed(bots))
