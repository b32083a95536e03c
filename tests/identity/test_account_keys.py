from __future__ import annotations

from starlette.testclient import TestClient

from botyard.identity.keys import key_format as keys
from tests.support.api import Api, assert_error, assert_not_found, assert_timestamp


def test_list_shows_prefixes_only(alice: Api) -> None:
    listed = alice.ok(alice.get("/account/keys"))
    assert len(listed) == 1
    assert set(listed[0]) == {"prefix", "created_at", "revoked_at"}
    assert listed[0]["prefix"] == keys.display_prefix(alice.key)
    assert listed[0]["revoked_at"] is None
    assert_timestamp(listed[0]["created_at"])


def test_create_returns_a_working_key_once(alice: Api, client: TestClient, issued_keys: list[str]) -> None:
    created = alice.ok(alice.post("/account/key/create"))
    assert set(created) == {"prefix", "created_at", "revoked_at", "key"}
    issued_keys.append(created["key"])
    assert keys.is_well_formed(created["key"])
    other = Api(client, created["key"])
    bot = alice.chatbot("shared by the account")
    assert [b["uuid"] for b in other.ok(other.get("/chatbots"))] == [bot["uuid"]]
    assert [k["prefix"] for k in alice.ok(alice.get("/account/keys"))] == [
        keys.display_prefix(alice.key),
        created["prefix"],
    ]


def test_revoke_own_key(alice: Api, client: TestClient, issued_keys: list[str]) -> None:
    created = alice.ok(alice.post("/account/key/create"))
    issued_keys.append(created["key"])
    revoked = alice.ok(alice.post(f"/account/key/{created['prefix']}/revoke"))
    assert revoked["revoked_at"] is not None
    assert_error(Api(client, created["key"]).get("/chatbots"), 401, "unauthorized")
    assert alice.get("/chatbots").status_code == 200


def test_cannot_see_or_revoke_another_accounts_key(alice: Api, bob: Api) -> None:
    assert_not_found(alice.post(f"/account/key/{keys.display_prefix(bob.key)}/revoke"))
    assert_not_found(alice.post("/account/key/by_missing0/revoke"))
    assert bob.get("/chatbots").status_code == 200
    assert keys.display_prefix(bob.key) not in alice.get("/account/keys").text
