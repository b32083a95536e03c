"""API keys from the dashboard: owners and admins create named keys (shown once), list them with their last use (to
the minute, written at most once a minute) and revoke them; a revoked key stops working at the next request. The
key paths programs use keep their shapes (tests/test_account_keys.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.auth import keys
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
    assert set(created) == {"name", "prefix", "created_at", "last_used_at", "revoked_at", "key"}
    assert created["name"] == "Zapier sync" and created["last_used_at"] is None
    assert keys.is_well_formed(created["key"]) and created["prefix"] == keys.display_prefix(created["key"])
    program = Api(client, created["key"])
    bot = program.chatbot("made by a program")
    listed = admin.ok(admin.get("/account/api-keys"))
    assert [(k["name"], k["prefix"]) for k in listed] == [("Zapier sync", created["prefix"])]
    assert_timestamp(listed[0]["last_used_at"])
    assert created["key"] not in str(listed)
    assert [b["uuid"] for b in admin.ok(admin.get("/chatbots"))] == [bot["uuid"]]  # one account

    revoked = admin.ok(admin.post(f"/account/key/{created['prefix']}/revoke"))
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
        editor.post(f"/account/key/{keys.display_prefix(alice.key)}/revoke"),
    ):
        assert_error(response, 403, "forbidden_role")
    assert alice.get("/chatbots").status_code == 200
