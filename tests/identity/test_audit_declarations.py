"""Every changing route says what it writes to the audit log (`identity/audited.py`), so that a new one cannot be
added without deciding it; reads write nothing."""

from __future__ import annotations

from collections.abc import Mapping

from botyard.identity import routes
from botyard.identity.audited import AUDITED, Audited, audited_for
from botyard.identity.roles import Permission
from botyard.models import AuditAction, AuditObject

CHANGING = ("POST", "PUT", "PATCH", "DELETE")


def undeclared(permissions: Mapping[str, Permission], audited: Mapping[str, Audited | None]) -> list[str]:
    """The changing routes of the permission table that the audit table does not mention."""
    return sorted(key for key in permissions if key.split(" ", 1)[0] in CHANGING and key not in audited)


def test_every_changing_route_declares_what_it_audits() -> None:
    assert undeclared(routes.ROUTES, AUDITED) == [], "say what these routes audit in identity/audited.py"
    assert sorted(set(AUDITED) - set(routes.ROUTES)) == [], "identity/audited.py names routes identity/routes.py lacks"
    assert [key for key in AUDITED if key.split(" ", 1)[0] not in CHANGING] == []


def test_the_check_finds_a_planted_route() -> None:
    planted = {**routes.ROUTES, "POST /api/v1/planted": Permission.MANAGE, "GET /api/v1/planted": Permission.READ}
    assert undeclared(planted, AUDITED) == ["POST /api/v1/planted"]


def test_management_changes_are_audited_and_conversations_are_not() -> None:
    assert audited_for("POST", "/api/v1/chatbot/create") == Audited(
        AuditObject.CHATBOT, AuditAction.CREATED, from_reply=True
    )
    assert audited_for("POST", "/api/v1/account/member/{uuid}/role") == Audited(
        AuditObject.MEMBER, AuditAction.UPDATED, "role"
    )
    for talk in ("/api/v1/session/{uuid}/message/stream", "/api/v1/session/{uuid}/live-chat/message"):
        assert talk in {key.split(" ", 1)[1] for key in AUDITED} and audited_for("POST", talk) is None
    changing = [key for key in routes.ROUTES if key.split(" ", 1)[0] in CHANGING]
    chat = [key for key in changing if routes.ROUTES[key] in (Permission.CHAT, Permission.LIVE)]
    assert chat and all(AUDITED[key] is None for key in chat)
    managed = [key for key in changing if routes.ROUTES[key] in (Permission.MANAGE, Permission.ACCESS)]
    assert managed and all(AUDITED[key] is not None for key in managed)
