"""An account's API keys through their one set of endpoints (`/account/api-keys`, `/account/api-key/create`,
`/account/api-key/{prefix}/revoke`), by an API key; the older paths answer 308 to them (docs/access.md)."""

from __future__ import annotations

from starlette.testclient import TestClient

from botyard.identity.keys import key_format as keys
from tests.support.api import Api, assert_error, assert_not_found, assert_timestamp

DETAILS = {"name", "prefix", "created_at", "last_used_at", "revoked_at", "made_by", "made_by_email"}


def test_list_shows_prefixes_only(alice: Api) -> None:
    listed = alice.ok(alice.get("/account/api-keys"))
    assert len(listed) == 1
    assert set(listed[0]) == DETAILS
    assert listed[0]["prefix"] == keys.display_prefix(alice.key)
    assert listed[0]["revoked_at"] is None and listed[0]["made_by"] is None  # made by the command line
    assert_timestamp(listed[0]["created_at"])
    assert alice.key not in str(listed)


def test_create_returns_a_working_key_once(alice: Api, client: TestClient, issued_keys: list[str]) -> None:
    created = alice.ok(alice.post("/account/api-key/create", {"name": "nightly"}))
    assert set(created) == DETAILS | {"key"}
    issued_keys.append(created["key"])
    assert keys.is_well_formed(created["key"]) and created["name"] == "nightly"
    other = Api(client, created["key"])
    bot = alice.chatbot("shared by the account")
    assert [b["uuid"] for b in other.ok(other.get("/chatbots"))] == [bot["uuid"]]
    assert [k["prefix"] for k in alice.ok(alice.get("/account/api-keys"))] == [
        keys.display_prefix(alice.key),
        created["prefix"],
    ]
    assert created["key"] not in alice.get("/account/api-keys").text


def test_revoke_own_key(alice: Api, client: TestClient, issued_keys: list[str]) -> None:
    created = alice.ok(alice.post("/account/api-key/create", {"name": "short-lived"}))
    issued_keys.append(created["key"])
    revoked = alice.ok(alice.post(f"/account/api-key/{created['prefix']}/revoke"))
    assert set(revoked) == DETAILS and revoked["name"] == "short-lived"
    assert_timestamp(revoked["revoked_at"])
    assert_error(Api(client, created["key"]).get("/chatbots"), 401, "unauthorized")
    assert alice.get("/chatbots").status_code == 200


def test_cannot_see_or_revoke_another_accounts_key(alice: Api, bob: Api) -> None:
    assert_not_found(alice.post(f"/account/api-key/{keys.display_prefix(bob.key)}/revoke"))
    assert_not_found(alice.post("/account/api-key/by_missing0/revoke"))
    assert bob.get("/chatbots").status_code == 200
    assert keys.display_prefix(bob.key) not in alice.get("/account/api-keys").text


def test_the_older_paths_answer_308_to_the_one_set(alice: Api, client: TestClient, issued_keys: list[str]) -> None:
    prefix = keys.display_prefix(alice.key)
    moved = {
        ("GET", "/api/v1/account/keys"): "/api/v1/account/api-keys",
        ("POST", "/api/v1/account/key/create"): "/api/v1/account/api-key/create",
        ("POST", f"/api/v1/account/key/{prefix}/revoke"): f"/api/v1/account/api-key/{prefix}/revoke",
    }
    for (method, path), target in moved.items():
        response = client.request(method, path, follow_redirects=False)  # no key needed to learn where it went
        assert (response.status_code, response.headers["location"]) == (308, target), path
    # A client that follows redirects sends the same request again, its key and body included.
    listed = client.get("/api/v1/account/keys", headers=alice.auth)
    assert listed.status_code == 200 and [k["prefix"] for k in listed.json()] == [prefix]
    created = client.post("/api/v1/account/key/create", json={"name": "old client"}, headers=alice.auth)
    assert created.status_code == 200 and created.json()["name"] == "old client"
    issued_keys.append(created.json()["key"])
    assert_error(client.post("/api/v1/account/key/create", headers=alice.auth), 422, "validation_error")  # no name
    assert_not_found(client.post("/api/v1/account/key/by_missing0/revoke", headers=alice.auth))
