"""Every changing route says what it writes to the audit log where it is defined (`identity/access.py`: `Audited`,
or `NotAudited` and why), so that a new one cannot be added without deciding it; reads write nothing. The
declarations are read from the app's routes."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.access import Audited, NotAudited, access_of, requires
from botyard.main import create_app
from botyard.models import AuditAction, AuditObject, Permission
from tests.support.fake_dns import FakeDns
from tests.support.routes import CHANGING, api_routes, declared


def undeclared(app: FastAPI) -> list[str]:
    """The signed routes whose audit declaration is missing (a change) or there for nothing (a read)."""
    wrong = []
    for method, path, route in api_routes(app):
        access = access_of(route)
        if access is None or access.permission is None:
            continue  # declaring nothing is the permission test's to find; public routes record their own events
        if (method in CHANGING) != (access.audits is not None):
            wrong.append(f"{method} {path}")
    return wrong


def test_every_changing_route_declares_what_it_audits(client: TestClient) -> None:
    app: FastAPI = client.app  # type: ignore[assignment]
    assert undeclared(app) == [], "say what these routes audit in their requires(...)"
    assert sum(1 for method, _, _ in api_routes(app) if method in CHANGING) > 60


def test_the_check_finds_a_planted_route(settings: Settings, fake_dns: FakeDns) -> None:
    app = create_app(settings, resolver=fake_dns)

    @app.post("/api/v1/planted", dependencies=[requires(Permission.MANAGE)])
    async def planted_change() -> None:
        """Planted by the test: a change that does not say what it audits."""

    @app.get("/api/v1/planted", dependencies=[requires(Permission.READ)])
    async def planted_read() -> None:
        """Planted by the test: a read, which audits nothing."""

    @app.get(
        "/api/v1/planted-read",
        dependencies=[requires(Permission.READ, Audited(AuditObject.CHATBOT, AuditAction.UPDATED))],
    )
    async def planted_audited_read() -> None:
        """Planted by the test: a read that says it audits."""

    assert undeclared(app) == ["POST /api/v1/planted", "GET /api/v1/planted-read"]


def test_management_changes_are_audited_and_conversations_are_not(client: TestClient) -> None:
    routes = declared(client.app)  # type: ignore[arg-type]
    create = routes["POST /api/v1/chatbot/create"]
    assert create is not None and create.audits == Audited(AuditObject.CHATBOT, AuditAction.CREATED, from_reply=True)
    role = routes["POST /api/v1/account/member/{uuid}/role"]
    assert role is not None and role.audits == Audited(AuditObject.MEMBER, AuditAction.UPDATED, "role")
    for talk in ("/api/v1/session/{uuid}/message/stream", "/api/v1/session/{uuid}/live-chat/message"):
        said = routes[f"POST {talk}"]
        assert said is not None and isinstance(said.audits, NotAudited)
    changing = {key: access for key, access in routes.items() if key.split(" ", 1)[0] in CHANGING and access}
    # The team's canned replies are written with `live` but are the account's shared words, not a conversation:
    # audited like settings. A contact's edit or merge needs only `live` too (those who answer people keep their
    # records), yet it changes a person's data, not a conversation: audited.
    canned = {key: access for key, access in changing.items() if "/canned-reply/" in key}
    assert len(canned) == 3 and all(isinstance(access.audits, Audited) for access in canned.values())
    contacts = {
        key: access
        for key, access in changing.items()
        if isinstance(access.audits, Audited)
        and access.audits.object_type == AuditObject.CONTACT
        and access.permission is Permission.LIVE
    }
    assert len(contacts) == 2
    talking = (Permission.CHAT, Permission.LIVE)
    chat = [
        access
        for key, access in changing.items()
        if access.permission in talking and key not in canned and key not in contacts
    ]
    assert chat and all(isinstance(access.audits, NotAudited) for access in chat)
    managed = [access for access in changing.values() if access.permission in (Permission.MANAGE, Permission.ACCESS)]
    assert managed and all(isinstance(access.audits, Audited) for access in managed)
