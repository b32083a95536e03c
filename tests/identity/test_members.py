"""The members of an account, run by its owners and admins: invitations by link (once, for a week), roles and the
rules that guard ownership, removal, and one-time password reset links."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.models import Invitation, Role
from tests.support.api import MISSING, Api, assert_error, assert_not_found
from tests.support.database import Db
from tests.support.people import PASSWORD, SAME_ORIGIN, Person, person, sign_in

ACME = "acme@example.com"
NEW_PASSWORD = "a new long password"


def _token(link: str, kind: str) -> str:
    assert f"/dashboard#{kind}=" in link, link
    return link.split(f"#{kind}=", 1)[1]


def _accept(client: TestClient, token: str, name: str = "Erin", password: str = NEW_PASSWORD) -> object:
    body = {"token": token, "name": name, "password": password}
    return client.post("/api/v1/auth/invitation/accept", json=body, headers=SAME_ORIGIN)


def test_an_invitation_link_makes_a_member_once(client: TestClient, db: Db) -> None:
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    invited = admin.ok(admin.post("/account/invitation/create", {"email": "Erin@Example.com", "role": "editor"}))
    assert invited["email"] == "erin@example.com" and invited["role"] == "editor"
    token = _token(invited["link"], "invite")
    listed = admin.ok(admin.get("/account/invitations"))
    assert [item["uuid"] for item in listed] == [invited["uuid"]] and token not in str(listed)

    preview = client.post("/api/v1/auth/invitation", json={"token": token})
    assert preview.json() | {"expires_at": ""} == {"email": "erin@example.com", "role": "editor", "expires_at": ""}
    short = _accept(client, token, password="short")
    assert_error(short, 422, "validation_error")  # type: ignore[arg-type]
    accepted = _accept(client, token)
    assert accepted.status_code == 200, accepted.text  # type: ignore[attr-defined]
    assert accepted.json()["user"]["name"] == "Erin" and accepted.json()["role"] == "editor"  # type: ignore[attr-defined]
    assert "botyard_session" in accepted.cookies  # type: ignore[attr-defined] # signed in at once
    client.cookies.clear()
    assert_error(_accept(client, token), 410, "link_invalid")  # type: ignore[arg-type] # once
    assert admin.ok(admin.get("/account/invitations")) == []
    members = admin.ok(admin.get("/account/members"))
    assert sorted((m["email"], m["role"]) for m in members) == [
        ("admin@example.com", "admin"),
        ("erin@example.com", "editor"),
    ]
    assert sign_in(client, "erin@example.com", NEW_PASSWORD).me["role"] == "editor"


def test_an_invitation_expires_and_can_be_withdrawn(client: TestClient, db: Db) -> None:
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    first = admin.ok(admin.post("/account/invitation/create", {"email": "a@example.com", "role": "viewer"}))
    second = admin.ok(admin.post("/account/invitation/create", {"email": "b@example.com", "role": "viewer"}))

    async def expire(session: AsyncSession) -> None:
        gone = datetime.now(UTC) - timedelta(seconds=1)
        await session.execute(update(Invitation).where(Invitation.uuid == first["uuid"]).values(expires_at=gone))

    db.run(expire)
    assert_error(_accept(client, _token(first["link"], "invite")), 410, "link_invalid")  # type: ignore[arg-type]
    assert admin.ok(admin.post(f"/account/invitation/{second['uuid']}/withdraw")) == {"success": True}
    assert_error(_accept(client, _token(second["link"], "invite")), 410, "link_invalid")  # type: ignore[arg-type]
    assert_error(client.post("/api/v1/auth/invitation", json={"token": "nothing"}), 410, "link_invalid")


def test_an_email_belongs_to_one_member_of_the_service(client: TestClient, db: Db) -> None:
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    person(client, db, "other@example.com", "taken@example.com", Role.VIEWER)
    taken = admin.post("/account/invitation/create", {"email": "TAKEN@example.com", "role": "viewer"})
    assert_error(taken, 409, "email_taken")


def test_only_an_owner_deals_in_ownership(client: TestClient, db: Db) -> None:
    owner = person(client, db, ACME, "owner@example.com", Role.OWNER)
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    owner_uuid = owner.me["user"]["uuid"]
    assert_error(
        admin.post("/account/invitation/create", {"email": "x@example.com", "role": "owner"}), 403, "forbidden_role"
    )
    assert_error(admin.post(f"/account/member/{owner_uuid}/role", {"role": "viewer"}), 403, "forbidden_role")
    assert_error(admin.post(f"/account/member/{owner_uuid}/remove"), 403, "forbidden_role")
    assert_error(admin.post(f"/account/member/{owner_uuid}/reset-link"), 403, "forbidden_role")
    assert_error(
        admin.post(f"/account/member/{admin.me['user']['uuid']}/role", {"role": "owner"}), 403, "forbidden_role"
    )
    assert owner.get("/chatbots").status_code == 200  # still signed in, still owner

    promoted = owner.ok(owner.post(f"/account/member/{admin.me['user']['uuid']}/role", {"role": "owner"}))
    assert promoted["role"] == "owner"
    assert admin.ok(admin.post(f"/account/member/{owner_uuid}/role", {"role": "editor"}))["role"] == "editor"


def test_the_last_owner_cannot_leave(client: TestClient, db: Db) -> None:
    owner = person(client, db, ACME, "owner@example.com", Role.OWNER)
    me = owner.me["user"]["uuid"]
    assert_error(owner.post(f"/account/member/{me}/role", {"role": "admin"}), 409, "last_owner")
    assert_error(owner.post(f"/account/member/{me}/remove"), 409, "last_owner")
    second = person(client, db, ACME, "second@example.com", Role.OWNER)
    assert owner.ok(owner.post(f"/account/member/{me}/remove")) == {"success": True}  # another owner stays
    assert_error(owner.get("/chatbots"), 401, "unauthorized")  # removed: the session ended with the member
    assert [m["email"] for m in second.ok(second.get("/account/members"))] == ["second@example.com"]


def test_a_new_role_counts_at_the_next_request(client: TestClient, db: Db) -> None:
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    viewer = person(client, db, ACME, "viewer@example.com", Role.VIEWER)
    bot = admin.ok(admin.post("/chatbot/create", {"name": "bot"}))["uuid"]
    qa = {"question": "Opening hours?", "answer": "9 to 5"}
    assert_error(viewer.post(f"/chatbot/{bot}/data-source/qa", qa), 403, "forbidden_role")
    admin.ok(admin.post(f"/account/member/{viewer.me['user']['uuid']}/role", {"role": "editor"}))
    assert viewer.post(f"/chatbot/{bot}/data-source/qa", qa).status_code == 200
    assert viewer.ok(viewer.get("/auth/me"))["role"] == "editor"


def test_another_accounts_members_are_missing(client: TestClient, db: Db) -> None:
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    stranger = person(client, db, "other@example.com", "stranger@example.com", Role.VIEWER)
    uuid = stranger.me["user"]["uuid"]
    for path, body in (("role", {"role": "viewer"}), ("remove", None), ("reset-link", None)):
        assert_not_found(admin.post(f"/account/member/{uuid}/{path}", body))
        assert_not_found(admin.post(f"/account/member/{MISSING}/{path}", body))
    assert stranger.get("/chatbots").status_code == 200


def test_a_reset_link_sets_a_new_password_once(client: TestClient, db: Db) -> None:
    admin = person(client, db, ACME, "admin@example.com", Role.ADMIN)
    editor: Person = person(client, db, ACME, "editor@example.com", Role.EDITOR)
    made = admin.ok(admin.post(f"/account/member/{editor.me['user']['uuid']}/reset-link"))
    assert made["email"] == "editor@example.com"
    token = _token(made["link"], "reset")
    body = {"token": token, "password": NEW_PASSWORD}
    reset = client.post("/api/v1/auth/password-reset", json=body, headers=SAME_ORIGIN)
    assert reset.status_code == 200 and "botyard_session" in reset.cookies, reset.text
    client.cookies.clear()
    assert_error(editor.get("/chatbots"), 401, "unauthorized")  # the old sessions ended
    assert_error(client.post("/api/v1/auth/password-reset", json=body, headers=SAME_ORIGIN), 410, "link_invalid")
    wrong = client.post("/api/v1/auth/sign-in", json={"email": "editor@example.com", "password": PASSWORD})
    assert_error(wrong, 401, "signin_failed")
    assert sign_in(client, "editor@example.com", NEW_PASSWORD).me["role"] == "editor"


def test_a_key_acts_as_an_admin(alice: Api, client: TestClient, db: Db) -> None:
    owner = person(client, db, "alice@example.com", "owner@example.com", Role.OWNER)
    me = alice.ok(alice.get("/auth/me"))
    assert me["role"] == "admin" and me["user"] is None
    invited = alice.ok(alice.post("/account/invitation/create", {"email": "op@example.com", "role": "operator"}))
    assert invited["role"] == "operator"
    assert_error(alice.post(f"/account/member/{owner.me['user']['uuid']}/remove"), 403, "forbidden_role")
    assert_error(alice.post("/auth/sign-out-everywhere"), 422, "validation_error")
