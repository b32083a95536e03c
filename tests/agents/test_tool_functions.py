"""Tool functions: shape and defaults, validation, unique names, which agents may have them, isolation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import select

from botyard.agents import functions
from botyard.agents.function_schemas import ToolFunctionCreate
from botyard.errors import AppError
from botyard.models import Agent, Chatbot, ToolFunction
from tests.support.agents import count, make_agent
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_timestamp, assert_uuid
from tests.support.database import Db

FUNCTION_KEYS = {
    "uuid",
    "name",
    "description",
    "enabled",
    "external_url",
    "method",
    "headers",
    "meta",
    "parameters",
    "created_at",
    "modified_at",
}
URL = "https://api.example.com/orders"
PARAMETERS = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "description": "The order number"},
        "items": {"type": "array", "description": "Items", "items": {"type": "string"}},
    },
    "required": ["order_id"],
}


def agent_uuid(api: Api, type_: str = "user-facing") -> str:
    uuid: str = make_agent(api, api.chatbot()["uuid"], type_)["uuid"]
    return uuid


def create(api: Api, agent: str, **fields: Any) -> Any:
    return api.ok(api.post(f"/agent/{agent}/function/create", {"name": "get_order", "external_url": URL, **fields}))


def assert_function(function: dict[str, Any]) -> None:
    assert set(function) == FUNCTION_KEYS
    assert_uuid(function["uuid"])
    assert_timestamp(function["created_at"])
    assert_timestamp(function["modified_at"])
    assert type(function["enabled"]) is int


@pytest.mark.parametrize("type_", ["user-facing", "background"])
def test_create_has_exact_shape_and_defaults(alice: Api, type_: str) -> None:
    agent = agent_uuid(alice, type_)
    function = create(alice, agent)
    assert_function(function)
    assert {key: value for key, value in function.items() if key not in ("uuid", "created_at", "modified_at")} == {
        "name": "get_order",
        "description": "",
        "enabled": 1,
        "external_url": URL,
        "method": "GET",
        "headers": {},
        "meta": {"allow_gpt_trainer_properties": False},
        "parameters": {"type": "object", "properties": {}, "required": []},
    }
    assert alice.ok(alice.get(f"/agent/{agent}"))["tool_functions"] == [function]


def test_create_with_every_field(alice: Api) -> None:
    agent = agent_uuid(alice)
    function = create(
        alice,
        agent,
        name="Order-Lookup_2",
        description="d" * 1023,
        parameters={**PARAMETERS, "required": ["order_id", "order_id"]},
        headers={"X-Api-Key": "secret", "Accept": "application/json"},
        enabled=False,
        external_url="  https://orders.example.com/v1?x=1  ",
        method="post",
        meta={"allow_gpt_trainer_properties": 1, "note": "kept"},
    )
    assert_function(function)
    assert function["name"] == "Order-Lookup_2"
    assert function["enabled"] == 0
    assert function["method"] == "POST"
    assert function["external_url"] == "https://orders.example.com/v1?x=1"
    assert function["parameters"] == PARAMETERS
    assert function["headers"] == {"X-Api-Key": "********", "Accept": "********"}  # values: test_tool_function_secrets
    assert function["meta"] == {"allow_gpt_trainer_properties": True, "note": "kept"}
    assert create(alice, agent, name="off", enabled=0)["enabled"] == 0


def test_agents_list_their_functions_in_creation_order(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot)["uuid"]
    created = [create(alice, agent, name=name) for name in ("b", "a", "c")]
    for shown in (alice.ok(alice.get(f"/agent/{agent}")), alice.ok(alice.get(f"/chatbot/{bot}/agents"))[1]):
        assert shown["tool_functions"] == created
    updated = alice.ok(alice.post(f"/agent/{agent}/update", {"prompt": "p"}))
    assert updated["tool_functions"] == created


INVALID = [
    ({"name": None}, "name"),
    ({"name": ""}, "name"),
    ({"name": "has space"}, "name"),
    ({"name": "a" * 65}, "name"),
    ({"name": "dot.name"}, "name"),
    ({"description": "d" * 1024}, "description"),
    ({"parameters": {"type": "array"}}, "parameters.type"),
    ({"parameters": {"properties": {"a": {"type": "string"}}, "required": ["b"]}}, "parameters"),
    ({"parameters": {"properties": {"a": {"description": "no type"}}}}, "parameters.properties.a.type"),
    ({"parameters": {"properties": {"a": {"type": "text"}}}}, "parameters.properties.a.type"),
    ({"parameters": {"properties": []}}, "parameters.properties"),
    ({"parameters": "{}"}, "parameters"),
    ({"headers": {"X-Count": 3}}, "headers.X-Count"),
    ({"headers": {"X-Evil": "a\r\nInjected: 1"}}, "headers.X-Evil"),
    ({"headers": {"X-Nul": "a\u0000b"}}, "headers.X-Nul"),
    ({"headers": {"bad name": "x"}}, "headers.bad name.[key]"),
    ({"headers": ["X-A"]}, "headers"),
    ({"external_url": None}, "external_url"),
    ({"external_url": "ftp://example.com/x"}, "external_url"),
    ({"external_url": "/relative/path"}, "external_url"),
    ({"external_url": "not a url"}, "external_url"),
    ({"external_url": "https://"}, "external_url"),
    ({"method": "HEAD"}, "method"),
    ({"method": 1}, "method"),
    ({"enabled": "yes"}, "enabled"),
    ({"enabled": 2}, "enabled"),
    ({"meta": {"allow_gpt_trainer_properties": "x"}}, "meta.allow_gpt_trainer_properties"),
    ({"meta": []}, "meta"),
]


@pytest.mark.parametrize(("fields", "field"), INVALID)
def test_create_rejects_invalid_fields_and_writes_nothing(
    alice: Api, db: Db, fields: dict[str, Any], field: str
) -> None:
    agent = agent_uuid(alice)
    body = {"name": "f", "external_url": URL, **fields}
    error = assert_error(alice.post(f"/agent/{agent}/function/create", body), 422, "validation_error")
    assert any(detail["field"] == field for detail in error["details"]), error
    assert count(db, ToolFunction) == 0


@pytest.mark.parametrize(
    ("fields", "field"), [case for case in INVALID if case[0] not in ({"name": None}, {"external_url": None})]
)
def test_update_rejects_invalid_fields_and_changes_nothing(alice: Api, fields: dict[str, Any], field: str) -> None:
    agent = agent_uuid(alice)
    function = create(alice, agent)
    error = alice.post(f"/function/{function['uuid']}/update", {"description": "changed", **fields})
    assert any(detail["field"] == field for detail in assert_error(error, 422, "validation_error")["details"])
    assert alice.ok(alice.get(f"/agent/{agent}"))["tool_functions"] == [function]


@pytest.mark.parametrize("type_", ["human-escalation", "pre-canned", "spam-defense"])
def test_only_user_facing_and_background_agents_have_functions(alice: Api, db: Db, type_: str) -> None:
    agent = agent_uuid(alice, type_)
    error = assert_error(
        alice.post(f"/agent/{agent}/function/create", {"name": "f", "external_url": URL}), 422, "validation_error"
    )
    assert type_ in error["error"]
    assert count(db, ToolFunction) == 0


def test_names_are_unique_per_agent(alice: Api, db: Db) -> None:
    agent = agent_uuid(alice)
    first = create(alice, agent, name="lookup")
    second = create(alice, agent, name="other")
    assert_error(
        alice.post(f"/agent/{agent}/function/create", {"name": "lookup", "external_url": URL}), 409, "conflict"
    )
    assert count(db, ToolFunction) == 2
    rename = alice.post(f"/function/{second['uuid']}/update", {"name": "lookup", "description": "x"})
    assert_error(rename, 409, "conflict")
    assert alice.ok(alice.get(f"/agent/{agent}"))["tool_functions"] == [first, second]
    assert alice.ok(alice.post(f"/function/{first['uuid']}/update", {"name": "lookup"}))["name"] == "lookup"
    create(alice, agent_uuid(alice), name="lookup")  # another agent may use the name


def test_update_changes_only_given_fields(alice: Api) -> None:
    agent = agent_uuid(alice)
    function = create(alice, agent, headers={"A": "1"}, parameters=PARAMETERS, method="PUT", meta={"x": 1})
    path = f"/function/{function['uuid']}/update"
    updated = alice.ok(alice.post(path, {"description": "Finds an order", "enabled": False, "method": "delete"}))
    assert_function(updated)
    assert updated == {
        **function,
        "description": "Finds an order",
        "enabled": 0,
        "method": "DELETE",
        "modified_at": updated["modified_at"],
    }
    replaced = alice.ok(alice.post(path, {"headers": {"B": "2"}, "parameters": {}, "meta": {}, "enabled": 1}))
    assert (replaced["headers"], replaced["enabled"]) == ({"B": "********"}, 1)
    assert replaced["parameters"] == {"type": "object", "properties": {}, "required": []}
    assert replaced["meta"] == {"allow_gpt_trainer_properties": False}
    assert alice.ok(alice.get(f"/agent/{agent}"))["tool_functions"] == [replaced]


def test_update_accepts_no_body_empty_body_and_nulls(alice: Api) -> None:
    function = create(alice, agent_uuid(alice), description="keep")
    path = f"/api/v1/function/{function['uuid']}/update"
    for response in (
        alice.client.post(path, headers=alice.auth),
        alice.client.post(path, headers={**alice.auth, "Content-Type": "application/json"}),
        alice.post(f"/function/{function['uuid']}/update", {}),
        alice.post(f"/function/{function['uuid']}/update", {"description": None, "name": None, "extra": 1}),
    ):
        assert alice.ok(response) == function


def test_delete(alice: Api) -> None:
    agent = agent_uuid(alice)
    gone, kept = create(alice, agent, name="gone"), create(alice, agent, name="kept")
    assert alice.ok(alice.post(f"/function/{gone['uuid']}/delete")) == {"success": True}
    assert alice.ok(alice.get(f"/agent/{agent}"))["tool_functions"] == [kept]
    assert_not_found(alice.post(f"/function/{gone['uuid']}/delete"))
    assert_not_found(alice.post(f"/function/{gone['uuid']}/update", {"name": "x"}))


def test_missing_and_foreign_functions_are_identical_404_and_stay_unchanged(alice: Api, bob: Api) -> None:
    bob_agent = agent_uuid(bob)
    theirs = create(bob, bob_agent, headers={"Authorization": "Bearer theirs"})
    create(alice, agent_uuid(alice))
    for uuid in (theirs["uuid"], MISSING, "not-a-uuid"):
        for response in (
            alice.post(f"/function/{uuid}/update", {"name": "mine", "external_url": "https://evil.example"}),
            alice.post(f"/function/{uuid}/update"),
            alice.post(f"/function/{uuid}/delete"),
        ):
            assert_not_found(response)
            assert response.json() == {"error": "Tool function not found", "code": "not_found"}
    assert_not_found(alice.post(f"/agent/{bob_agent}/function/create", {"name": "f", "external_url": URL}))
    assert bob.ok(bob.get(f"/agent/{bob_agent}"))["tool_functions"] == [theirs]


def test_concurrent_creates_of_one_name_make_one_function(alice: Api, db: Db) -> None:
    agent = agent_uuid(alice)
    account = db.run(
        lambda session: session.scalar(
            select(Chatbot.account_uuid).join(Agent, Agent.chatbot_uuid == Chatbot.uuid).where(Agent.uuid == agent)
        )
    )
    assert account is not None

    async def attempt() -> str:
        try:
            async with db.database.transaction() as session:
                await functions.create(session, account, agent, ToolFunctionCreate(name="same", external_url=URL))
        except AppError as error:
            return error.code.value
        return "created"

    async def race() -> list[str]:
        return await asyncio.gather(*(attempt() for _ in range(8)))

    assert db.client.portal is not None
    assert sorted(db.client.portal.call(race)) == ["conflict"] * 7 + ["created"]
    assert count(db, ToolFunction) == 1
