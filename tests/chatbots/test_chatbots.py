from __future__ import annotations

import pytest

from tests.support.api import Api, assert_error, assert_not_found, assert_timestamp, assert_uuid

CHATBOT_KEYS = {"uuid", "name", "created_at", "modified_at", "meta"}
META_KEYS = {"rate_limit", "rate_limit_message", "show_citations", "visibility"}


def test_create_has_exact_shape_and_defaults(alice: Api) -> None:
    bot = alice.chatbot("Docs bot")
    assert set(bot) == CHATBOT_KEYS
    assert set(bot["meta"]) == META_KEYS
    assert_uuid(bot["uuid"])
    assert_timestamp(bot["created_at"])
    assert_timestamp(bot["modified_at"])
    assert bot["name"] == "Docs bot"
    assert bot["meta"] == {
        "rate_limit": [20, 240],
        "rate_limit_message": "Too many messages",
        "show_citations": False,
        "visibility": "private",
    }


def test_create_with_settings_flat_and_nested(alice: Api) -> None:
    flat = alice.chatbot(rate_limit=[5, 60], rate_limit_message="Slow down", show_citations=True, visibility="public")
    assert flat["meta"] == {
        "rate_limit": [5, 60],
        "rate_limit_message": "Slow down",
        "show_citations": True,
        "visibility": "public",
    }
    nested = alice.chatbot(meta={"rate_limit": [1, 1], "visibility": "hybrid"})
    assert nested["meta"]["rate_limit"] == [1, 1]
    assert nested["meta"]["visibility"] == "hybrid"


def test_create_makes_the_default_agent(alice: Api) -> None:
    bot = alice.chatbot()
    agents = alice.ok(alice.get(f"/chatbot/{bot['uuid']}/agents"))
    assert len(agents) == 1
    agent = agents[0]
    assert agent["name"] == "General Q&A"
    assert agent["type"] == "user-facing"
    assert agent["enabled"] == 1
    assert agent["meta"]["use_all_sources"] is True
    assert agent["meta"]["temperature"] == 0
    assert agent["tool_functions"] == []
    assert "reference documents" in agent["prompt"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": 12}, "name"),
        ({"name": "x", "rate_limit": [0, 10]}, "rate_limit.0"),
        ({"name": "x", "rate_limit": [101, 10]}, "rate_limit.0"),
        ({"name": "x", "rate_limit": [10, 0]}, "rate_limit.1"),
        ({"name": "x", "rate_limit": [10, 361]}, "rate_limit.1"),
        ({"name": "x", "rate_limit": [10]}, "rate_limit"),
        ({"name": "x", "rate_limit": [10, 20, 30]}, "rate_limit"),
        ({"name": "x", "rate_limit": "10/60"}, "rate_limit"),
        ({"name": "x", "visibility": "secret"}, "visibility"),
        ({"name": "x", "show_citations": "maybe"}, "show_citations"),
        ({"name": "x", "rate_limit_message": ["no"]}, "rate_limit_message"),
    ],
)
def test_create_rejects_invalid_bodies_and_writes_nothing(alice: Api, body: dict[str, object], field: str) -> None:
    error = assert_error(alice.post("/chatbot/create", body), 422, "validation_error")
    assert any(detail["field"].startswith(field) for detail in error["details"]), error
    assert alice.ok(alice.get("/chatbots")) == []


def test_create_rejects_malformed_json(alice: Api) -> None:
    response = alice.client.post(
        "/api/v1/chatbot/create",
        headers={**alice.auth, "Content-Type": "application/json"},
        content=b'{"name": ',
    )
    assert_error(response, 400, "invalid_json")
    assert alice.ok(alice.get("/chatbots")) == []


def test_create_accepts_missing_or_misspelled_content_type(alice: Api) -> None:
    for content_type in (None, "text/plain", "application/jsn"):
        headers = dict(alice.auth)
        if content_type:
            headers["Content-Type"] = content_type
        response = alice.client.post("/api/v1/chatbot/create", headers=headers, content=b'{"name": "plain"}')
        assert alice.ok(response)["name"] == "plain"


def test_update_changes_only_given_fields(alice: Api) -> None:
    bot = alice.chatbot("Before", show_citations=True)
    updated = alice.ok(alice.post(f"/chatbot/{bot['uuid']}/update", {"name": "After", "rate_limit": [3, 30]}))
    assert set(updated) == CHATBOT_KEYS
    assert updated["name"] == "After"
    assert updated["meta"]["rate_limit"] == [3, 30]
    assert updated["meta"]["show_citations"] is True
    assert updated["created_at"] == bot["created_at"]
    assert alice.ok(alice.get(f"/chatbot/{bot['uuid']}")) == updated


def test_update_accepts_no_body_empty_body_nulls_and_extra_keys(alice: Api) -> None:
    bot = alice.chatbot("Same")
    path = f"/api/v1/chatbot/{bot['uuid']}/update"
    assert alice.ok(alice.client.post(path, headers=alice.auth))["name"] == "Same"
    assert alice.ok(alice.post(f"/chatbot/{bot['uuid']}/update", {}))["name"] == "Same"
    json_no_body = {**alice.auth, "Content-Type": "application/json"}
    assert alice.ok(alice.client.post(path, headers=json_no_body))["name"] == "Same"
    nulls = alice.ok(alice.post(f"/chatbot/{bot['uuid']}/update", {"name": None, "stream": False}))
    assert nulls["name"] == "Same"


def test_update_validation_error_changes_nothing(alice: Api) -> None:
    bot = alice.chatbot("Keep")
    error = alice.post(f"/chatbot/{bot['uuid']}/update", {"name": "Other", "visibility": "everyone"})
    assert_error(error, 422, "validation_error")
    assert alice.ok(alice.get(f"/chatbot/{bot['uuid']}"))["name"] == "Keep"


def test_list_returns_own_chatbots_in_creation_order(alice: Api, bob: Api) -> None:
    first = alice.chatbot("one")
    second = alice.chatbot("two")
    bob.chatbot("bob's")
    assert [bot["uuid"] for bot in alice.ok(alice.get("/chatbots"))] == [first["uuid"], second["uuid"]]


def test_fetch_missing_and_foreign_are_identical_404(alice: Api, bob: Api) -> None:
    foreign = bob.chatbot()
    missing = "0" * 32
    responses = [alice.get(f"/chatbot/{foreign['uuid']}"), alice.get(f"/chatbot/{missing}")]
    for response in responses:
        assert_not_found(response)
    assert responses[0].json() == responses[1].json()
    assert_not_found(alice.get("/chatbot/not-a-uuid"))


def test_delete_removes_the_chatbot_and_what_it_owns(alice: Api) -> None:
    bot = alice.chatbot()
    assert alice.ok(alice.delete(f"/chatbot/{bot['uuid']}/delete")) == {"success": True}
    assert_not_found(alice.get(f"/chatbot/{bot['uuid']}"))
    assert_not_found(alice.get(f"/chatbot/{bot['uuid']}/agents"))
    assert_not_found(alice.delete(f"/chatbot/{bot['uuid']}/delete"))
