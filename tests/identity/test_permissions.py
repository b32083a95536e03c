"""Roles on every route: every route of the API declares its permission where it is defined (`identity/access.py`,
read here from the app's routes), and each role is let through exactly where its permissions say (anything but 403),
refused elsewhere with 403 `forbidden_role`; an API key passes everywhere, as before people existed; another
account's objects stay 404."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.access import access_of, public
from botyard.identity.accounts.service import issue_key
from botyard.identity.caller import CurrentAccount
from botyard.identity.roles import GRANTS, Permission
from botyard.main import create_app
from botyard.models import Role
from tests.support.api import MISSING, Api, assert_error, assert_not_found
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.people import Person, person, sign_in
from tests.support.routes import api_routes, declared, signs

ACME = "acme@example.com"


def undeclared(app: FastAPI) -> list[str]:
    """The `/api` routes that declare nothing, or declare the wrong kind: a permission on a route that reads no
    signer, or `public()` on one that does."""
    wrong = []
    for method, path, route in api_routes(app):
        access = access_of(route)
        if access is None:
            wrong.append(f"{method} {path}: declares nothing")
        elif (access.permission is not None) != signs(route):
            declared = "public" if access.permission is None else access.permission
            wrong.append(f"{method} {path}: {declared} but signs: {signs(route)}")
    return wrong


def test_every_route_declares_what_it_needs(client: TestClient) -> None:
    app: FastAPI = client.app  # type: ignore[assignment]
    assert undeclared(app) == [], "declare these routes' permission: dependencies=[requires(...)] or [public()]"
    assert sum(1 for _, _, route in api_routes(app) if signs(route)) > 100


def test_the_declaration_check_finds_a_planted_route(
    settings: Settings, fake_dns: FakeDns, client: TestClient, issued_keys: list[str]
) -> None:
    """Routes nobody declared: the check above names them, people are refused, an API key passes as before."""
    app = create_app(settings, resolver=fake_dns)

    @app.get("/api/v1/planted")
    async def planted(account: CurrentAccount) -> dict[str, str]:
        """Planted by the test."""
        return {"account": account}

    @app.get("/api/v1/planted-public")
    async def planted_public() -> dict[str, str]:
        """Planted by the test: reads no signer, and does not say it is public."""
        return {}

    @app.get("/api/v1/planted-wrong", dependencies=[public()])
    async def planted_wrong(account: CurrentAccount) -> dict[str, str]:
        """Planted by the test: reads its signer, yet says it is public."""
        return {"account": account}

    assert undeclared(app) == [
        "GET /api/v1/planted: declares nothing",
        "GET /api/v1/planted-public: declares nothing",
        "GET /api/v1/planted-wrong: public but signs: True",
    ]
    with TestClient(app, raise_server_exceptions=False) as planted_client:
        db = Db(planted_client)
        owner = person(planted_client, db, ACME, "owner@example.com", Role.OWNER)
        assert_error(owner.get("/planted"), 403, "forbidden_role")
        issued = db.run(lambda session: issue_key(session, "keyholder@example.com"))
        issued_keys.append(issued.key)
        key = Api(planted_client, issued.key)
        assert key.get("/planted").status_code == 200  # an API key passes an undeclared route, as before people


def _url(path: str) -> str:
    for name in ("uuid", "chatbot_uuid", "session_uuid", "message_uuid"):
        path = path.replace("{" + name + "}", MISSING)
    return path.replace("{prefix}", "by_missing0")


_SIGN_OUT = ("/api/v1/auth/sign-out", "/api/v1/auth/sign-out-everywhere")


def _call(client: TestClient, caller: Person | Api, method: str, path: str) -> Any:
    headers = caller.headers() if isinstance(caller, Person) else caller.auth
    body = {} if method in ("POST", "PUT", "PATCH") else None
    response = client.request(method, _url(path), headers=headers, json=body)
    client.cookies.clear()
    return response


def test_every_role_on_every_route(client: TestClient, db: Db, alice: Api) -> None:
    app: FastAPI = client.app  # type: ignore[assignment]
    needs = {f"{method} {path}": access_of(route) for method, path, route in api_routes(app) if signs(route)}
    signed = [(key.split(" ", 1)[0], key.split(" ", 1)[1]) for key in needs]
    signed.sort(key=lambda route: route[1] in _SIGN_OUT)  # signing out last
    wrong: list[str] = []
    for role in Role:
        email = f"{role.value}@example.com"
        caller = person(client, db, ACME, email, role)
        for method, path in signed:
            if path in _SIGN_OUT:
                caller = sign_in(client, email)  # each sign-out ends a session of its own
            status = _call(client, caller, method, path).status_code
            access = needs[f"{method} {path}"]
            allowed = access is not None and access.permission in GRANTS[role]
            if (allowed and status in (401, 403)) or (not allowed and status != 403):
                wrong.append(f"{role.value} {method} {path}: {status} (allowed: {allowed})")
    for method, path in signed:  # an API key: everywhere, as before
        status = _call(client, alice, method, path).status_code
        if status in (401, 403):
            wrong.append(f"key {method} {path}: {status}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("role", [Role.VIEWER, Role.OPERATOR])
def test_a_refusal_names_the_role_and_its_code(client: TestClient, db: Db, role: Role) -> None:
    caller = person(client, db, ACME, "someone@example.com", role)
    body = assert_error(caller.post("/chatbot/create", {"name": "bot"}), 403, "forbidden_role")
    assert role.value in body["error"]


def test_roles_grant_what_the_issue_says(client: TestClient) -> None:
    assert GRANTS[Role.OWNER] == frozenset(Permission)
    assert GRANTS[Role.ADMIN] == frozenset(Permission) - {Permission.OWNERSHIP}
    assert Permission.KNOWLEDGE in GRANTS[Role.EDITOR] and Permission.LIVE not in GRANTS[Role.EDITOR]
    assert Permission.LIVE in GRANTS[Role.OPERATOR] and Permission.KNOWLEDGE not in GRANTS[Role.OPERATOR]
    assert GRANTS[Role.VIEWER] == {Permission.READ, Permission.SELF}
    reads = {key for key, access in declared(client.app).items() if access and access.permission is Permission.READ}  # type: ignore[arg-type]
    assert all(key.startswith("GET ") for key in reads - {"POST /api/v1/chatbot/{uuid}/retrieve"})


def test_another_accounts_objects_stay_missing(client: TestClient, db: Db, bob: Api) -> None:
    bobs = bob.chatbot("bob's")["uuid"]
    source = bob.ok(bob.post(f"/chatbot/{bobs}/data-source/qa", {"question": "q?", "answer": "a"}))["uuid"]
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    viewer = person(client, db, ACME, "viewer@example.com", Role.VIEWER)
    assert_not_found(admin.get(f"/chatbot/{bobs}"))
    assert_not_found(viewer.get(f"/chatbot/{bobs}"))
    assert_not_found(admin.get(f"/data-source/{source}"))
    assert_not_found(admin.post(f"/data-source/{source}/delete"))
    assert admin.ok(admin.get("/chatbots")) == []
    assert bob.get(f"/data-source/{source}").status_code == 200


def test_two_people_at_once(client: TestClient, db: Db) -> None:
    """An editor adds knowledge while a viewer of the same account reads it and is refused the same change."""
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    editor = person(client, db, ACME, "editor@example.com", Role.EDITOR)
    viewer = person(client, db, ACME, "viewer@example.com", Role.VIEWER)
    bot = admin.ok(admin.post("/chatbot/create", {"name": "shared"}))["uuid"]
    added = editor.ok(editor.post(f"/chatbot/{bot}/data-source/qa", {"question": "Hours?", "answer": "9 to 5"}))
    assert [s["uuid"] for s in viewer.ok(viewer.get(f"/chatbot/{bot}/data-sources"))] == [added["uuid"]]
    assert_error(viewer.post(f"/data-source/{added['uuid']}/delete"), 403, "forbidden_role")
    assert_error(editor.post(f"/chatbot/{bot}/update", {"name": "renamed"}), 403, "forbidden_role")
    assert editor.ok(editor.post(f"/data-source/{added['uuid']}/delete")) == {"success": True}
    assert viewer.ok(viewer.get(f"/chatbot/{bot}/data-sources")) == []
