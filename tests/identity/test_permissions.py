"""Roles on every route: the one table (`identity/routes.py`) covers every route of the API, and each role is let
through exactly where its permissions say (anything but 403), refused elsewhere with 403 `forbidden_role`; an API
key passes everywhere, as before people existed; another account's objects stay 404."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity import routes
from botyard.identity.caller import CurrentAccount, reads_key
from botyard.identity.roles import GRANTS, Permission
from botyard.main import create_app
from botyard.models import Role
from tests.support.api import MISSING, Api, assert_error, assert_not_found
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.people import Person, person, sign_in

ACME = "acme@example.com"


def api_routes(app: FastAPI) -> Iterator[tuple[str, str, bool]]:
    """Every `/api` route of the app as served: method, path template, and whether it reads who signs it."""
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute) and (context.path_format or "").startswith("/api/"):
            for method in sorted(context.methods or ()):
                yield method, context.path_format or "", reads_key(route.dependant)


def test_every_route_declares_what_it_needs(client: TestClient) -> None:
    app: FastAPI = client.app  # type: ignore[assignment]
    served = list(api_routes(app))
    signed = {f"{method} {path}" for method, path, reads in served if reads}
    unsigned = {f"{method} {path}" for method, path, reads in served if not reads}
    assert len(signed) > 100
    assert not signed - set(routes.ROUTES), "declare these routes' permission in identity/routes.py"
    assert not unsigned - routes.PUBLIC, "these routes read no signer: list them in people/routes.PUBLIC"
    assert not set(routes.ROUTES) - signed, "identity/routes.py declares routes the app does not have (or that sign)"
    assert not routes.PUBLIC - unsigned, "people/routes.PUBLIC lists routes the app does not have (or that sign)"


def test_the_declaration_check_finds_a_planted_route(settings: Settings, fake_dns: FakeDns, client: TestClient) -> None:
    """A route nobody declared: the check above names it, people are refused, an API key passes as before."""
    app = create_app(settings, resolver=fake_dns)

    @app.get("/api/v1/planted")
    async def planted(account: CurrentAccount) -> dict[str, str]:
        """Planted by the test."""
        return {"account": account}

    assert ("GET", "/api/v1/planted", True) in set(api_routes(app))
    assert "GET /api/v1/planted" not in routes.ROUTES
    with TestClient(app, raise_server_exceptions=False) as planted_client:
        db = Db(planted_client)
        owner = person(planted_client, db, ACME, "owner@example.com", Role.OWNER)
        assert_error(owner.get("/planted"), 403, "forbidden_role")


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
    signed = [(method, path) for method, path, reads in api_routes(app) if reads]
    signed.sort(key=lambda route: route[1] in _SIGN_OUT)  # signing out last
    wrong: list[str] = []
    for role in Role:
        email = f"{role.value}@example.com"
        caller = person(client, db, ACME, email, role)
        for method, path in signed:
            if path in _SIGN_OUT:
                caller = sign_in(client, email)  # each sign-out ends a session of its own
            status = _call(client, caller, method, path).status_code
            allowed = routes.ROUTES[f"{method} {path}"] in GRANTS[role]
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


def test_roles_grant_what_the_issue_says() -> None:
    assert GRANTS[Role.OWNER] == frozenset(Permission)
    assert GRANTS[Role.ADMIN] == frozenset(Permission) - {Permission.OWNERSHIP}
    assert Permission.KNOWLEDGE in GRANTS[Role.EDITOR] and Permission.LIVE not in GRANTS[Role.EDITOR]
    assert Permission.LIVE in GRANTS[Role.OPERATOR] and Permission.KNOWLEDGE not in GRANTS[Role.OPERATOR]
    assert GRANTS[Role.VIEWER] == {Permission.READ, Permission.SELF}
    reads = {key for key, needed in routes.ROUTES.items() if needed is Permission.READ}
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
