"""API keys from the dashboard: owners and admins create named keys (shown once), list them with their last use (to
the minute, written at most once a minute) and revoke them; a revoked key stops working at the next request. The
key paths programs use keep their shapes (tests/identity/test_account_keys.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.identity.keys import key_format as keys
from botyard.models import ApiKey, Role
from tests.support.api import Api, assert_error, assert_timestamp
from tests.support.database import Db
from tests.support.people import person


def _last_used(db: Db, prefix: str) -> datetime | None:
    async def read(session: AsyncSession) -> datetime | None:
        return (await session.execute(select(ApiKey.last_used_at).where(ApiKey.prefix == prefix))).scalar_one()

    return db.run(read)


def test_an_admin_names_lists_and_revokes_a_key(client: TestClient, db: Db, issued_keys: list[str]) -> None:
    admin = person(client, db, "acme@example.com", "admin@example.com", Role.ADMIN)
    created = admin.ok(admin.post("/account/api-key/create", {"name": "  Zapier sync "}))
    issued_keys.append(created["key"])
    shape = {"name", "prefix", "created_at", "last_used_at", "revoked_at", "made_by", "made_by_email", "key"}
    assert set(created) == shape
    assert created["name"] == "Zapier sync" and created["last_used_at"] is None
    assert keys.is_well_formed(created["key"]) and created["prefix"] == keys.display_prefix(created["key"])
    program = Api(client, created["key"])
    bot = program.chatbot("made by a program")
    listed = admin.ok(admin.get("/account/api-keys"))
    assert [(k["name"], k["prefix"]) for k in listed] == [("Zapier sync", created["prefix"])]
    assert_timestamp(listed[0]["last_used_at"])
    assert created["key"] not in str(listed)
    assert [b["uuid"] for b in admin.ok(admin.get("/chatbots"))] == [bot["uuid"]]  # one account

    revoked = admin.ok(admin.post(f"/account/api-key/{created['prefix']}/revoke"))
    assert revoked["revoked_at"] is not None
    assert_error(program.get("/chatbots"), 401, "unauthorized")  # at once
    assert admin.ok(admin.get("/account/api-keys"))[0]["revoked_at"] == revoked["revoked_at"]


def test_last_use_is_written_at_most_once_a_minute(alice: Api, db: Db) -> None:
    prefix = keys.display_prefix(alice.key)
    assert _last_used(db, prefix) is None
    alice.ok(alice.get("/chatbots"))
    first = _last_used(db, prefix)
    assert first is not None
    alice.ok(alice.get("/chatbots"))
    assert _last_used(db, prefix) == first  # within the minute: no write

    async def age(session: AsyncSession) -> None:
        earlier = datetime.now(UTC) - timedelta(minutes=2)
        await session.execute(update(ApiKey).where(ApiKey.prefix == prefix).values(last_used_at=earlier))

    db.run(age)
    alice.ok(alice.get("/chatbots"))
    later = _last_used(db, prefix)
    assert later is not None and later >= first


def test_only_owners_and_admins_manage_keys(client: TestClient, db: Db, alice: Api) -> None:
    editor = person(client, db, "alice@example.com", "editor@example.com", Role.EDITOR)
    for response in (
        editor.get("/account/api-keys"),
        editor.post("/account/api-key/create", {"name": "mine"}),
        editor.post(f"/account/api-key/{keys.display_prefix(alice.key)}/revoke"),
    ):
        assert_error(response, 403, "forbidden_role")
    assert alice.get("/chatbots").status_code == 200


def test_a_key_names_the_person_who_made_it(client: TestClient, db: Db, alice: Api, issued_keys: list[str]) -> None:
    admin = person(client, db, "alice@example.com", "admin@example.com", Role.ADMIN)
    mine = admin.ok(admin.post("/account/api-key/create", {"name": "mine"}))
    by_key = alice.ok(alice.post("/account/api-key/create", {"name": "made by a key"}))
    issued_keys.extend([mine["key"], by_key["key"]])
    me = admin.me["user"]["uuid"]
    assert (mine["made_by"], mine["made_by_email"]) == (me, "admin@example.com")
    listed = {key["prefix"]: (key["made_by"], key["made_by_email"]) for key in admin.ok(admin.get("/account/api-keys"))}
    assert listed == {
        keys.display_prefix(alice.key): (None, None),  # made by the command line
        mine["prefix"]: (me, "admin@example.com"),
        by_key["prefix"]: (None, None),
    }


def _events(viewer: Any, object_type: str) -> list[tuple[str, str, str | None]]:
    found = viewer.ok(viewer.get(f"/account/audit?object_type={object_type}"))["events"]
    return [(event["action"], event["object_uuid"], event["actor"]["user_uuid"]) for event in found]


def test_removing_a_person_can_revoke_the_keys_they_made(
    client: TestClient, db: Db, alice: Api, issued_keys: list[str]
) -> None:
    owner = person(client, db, "alice@example.com", "owner@example.com", Role.OWNER)
    leaver = person(client, db, "alice@example.com", "leaver@example.com", Role.ADMIN)
    stayer = person(client, db, "alice@example.com", "stayer@example.com", Role.ADMIN)
    made = [leaver.ok(leaver.post("/account/api-key/create", {"name": f"sync {n}"})) for n in range(2)]
    revoked_before = leaver.ok(leaver.post("/account/api-key/create", {"name": "old"}))
    kept = stayer.ok(stayer.post("/account/api-key/create", {"name": "stays"}))
    issued_keys.extend(key["key"] for key in [*made, revoked_before, kept])
    leaver.ok(leaver.post(f"/account/api-key/{revoked_before['prefix']}/revoke"))

    removal = {"revoke_keys": True}
    removed = owner.ok(owner.post(f"/account/member/{leaver.me['user']['uuid']}/remove", removal))
    assert removed == {"success": True, "revoked_keys": [key["prefix"] for key in made]}
    for key in made:
        assert_error(Api(client, key["key"]).get("/chatbots"), 401, "unauthorized")
    assert Api(client, kept["key"]).get("/chatbots").status_code == 200
    assert alice.get("/chatbots").status_code == 200
    revocations = {(prefix, actor) for action, prefix, actor in _events(owner, "key") if action == "revoked"}
    by_owner = {(key["prefix"], owner.me["user"]["uuid"]) for key in made}
    assert revocations == by_owner | {(revoked_before["prefix"], leaver.me["user"]["uuid"])}  # who revoked them
    listed = {key["prefix"]: key for key in owner.ok(owner.get("/account/api-keys"))}
    assert listed[made[0]["prefix"]]["made_by"] == leaver.me["user"]["uuid"]
    assert listed[made[0]["prefix"]]["made_by_email"] is None  # the maker is gone

    # Without the option the keys outlive their maker, as before, and the listing says whose they were.
    stayed = stayer.me["user"]["uuid"]
    assert owner.ok(owner.post(f"/account/member/{stayed}/remove")) == {"success": True}
    assert Api(client, kept["key"]).get("/chatbots").status_code == 200
    left = {key["prefix"]: key for key in owner.ok(owner.get("/account/api-keys"))}[kept["prefix"]]
    assert (left["made_by"], left["made_by_email"], left["revoked_at"]) == (stayed, None, None)
