"""Agents: shapes, type-specific settings, the one-per-chatbot types, source selection, isolation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents import service
from botyard.agents.rules import DEFAULT_MESSAGES
from botyard.agents.schemas import AgentCreate
from botyard.errors import AppError
from botyard.llm.catalogue import DEFAULT_MODEL
from botyard.models import Agent, AgentDataSource, Chatbot, DataSource, ToolFunction
from tests.support.agents import count, make_agent
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_timestamp, assert_uuid
from tests.support.database import Db

AGENT_KEYS = {
    "uuid",
    "name",
    "type",
    "description",
    "prompt",
    "enabled",
    "created_at",
    "modified_at",
    "data_source_uuids",
    "meta",
    "tool_functions",
}
VARIABLE_KEYS = {"name", "description", "type", "example", "default_value"}
ESCALATION_DEFAULTS = {
    "human_requested_message": "I have let our team know. A person will join this conversation shortly.",
    "live_chat_start_announcement": "You are now chatting with a person.",
    "live_chat_end_announcement": "The person has left the chat. I am back to answer your questions.",
    "monitored_messages": [],
    "notifications_enabled": 1,
    "sound_enabled": 1,
}
TYPES = ["user-facing", "background", "human-escalation", "pre-canned", "spam-defense"]


# Helpers shared with test_tool_functions.py.


def agents(api: Api, bot: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = api.ok(api.get(f"/chatbot/{bot}/agents"))
    return listed


def add_source(db: Db, chatbot_uuid: str, title: str = "Doc") -> str:
    """A data source row written directly (its API is tested elsewhere)."""

    async def go(session: AsyncSession) -> str:
        source = DataSource(chatbot_uuid=chatbot_uuid, type="qa", title=title)
        session.add(source)
        await session.flush()
        return source.uuid

    return db.run(go)


def assert_agent(agent: dict[str, Any], type_: str, *, variables: bool = True) -> None:
    """The exact key set of an agent as every endpoint answers it."""
    expected = AGENT_KEYS | ({"variables"} if variables else set())
    if type_ == "human-escalation":
        expected |= {"human_escalation_settings"}
    assert set(agent) == expected
    assert agent["type"] == type_
    assert_uuid(agent["uuid"])
    assert_timestamp(agent["created_at"])
    assert_timestamp(agent["modified_at"])


# Shapes and defaults.


@pytest.mark.parametrize(
    ("type_", "meta"),
    [
        ("user-facing", {"use_all_sources": False}),
        ("background", {"tags": []}),
        ("human-escalation", {}),
        ("pre-canned", {"default_message": DEFAULT_MESSAGES["pre-canned"]}),
        ("spam-defense", {"default_message": DEFAULT_MESSAGES["spam-defense"]}),
    ],
)
def test_create_has_exact_shape_and_defaults(alice: Api, type_: str, meta: dict[str, Any]) -> None:
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot, type_, name="  Router  ")
    assert_agent(agent, type_)
    assert agent["name"] == "Router"
    assert agent["enabled"] == 0 and type(agent["enabled"]) is int
    assert (agent["description"], agent["prompt"]) == ("", "")
    assert agent["data_source_uuids"] == []
    assert agent["tool_functions"] == []
    assert agent["variables"] == []
    assert agent["meta"] == {"model": DEFAULT_MODEL, "temperature": 0, **meta}
    if type_ == "human-escalation":
        assert agent["human_escalation_settings"] == ESCALATION_DEFAULTS
    assert alice.ok(alice.get(f"/agent/{agent['uuid']}")) == agent


def test_default_agent_in_list_and_fetch(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    (listed,) = agents(alice, bot)
    assert_agent(listed, "user-facing", variables=False)
    assert listed["enabled"] == 1 and type(listed["enabled"]) is int
    assert listed["meta"] == {"model": DEFAULT_MODEL, "temperature": 0, "use_all_sources": True}
    assert "{company}" in listed["prompt"] and listed["description"]
    fetched = alice.ok(alice.get(f"/agent/{listed['uuid']}"))
    assert fetched == {**listed, "variables": []}


def test_create_with_every_setting_flat(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    agent = make_agent(
        alice,
        bot,
        "user-facing",
        description="Answers billing questions",
        prompt="Be brief.",
        model="gpt-4o-8k",
        temperature=0.3,
        bias=0.5,
        stickness=0.25,
        use_all_sources=True,
        enabled=True,
    )
    assert agent["enabled"] == 0
    assert (agent["description"], agent["prompt"]) == ("Answers billing questions", "Be brief.")
    assert agent["meta"] == {
        "model": "gpt-4o-8k",
        "temperature": 0.3,
        "use_all_sources": True,
        "bias": 0.5,
        "stickness": 0.25,
    }


def test_create_with_meta_object_and_stickiness_spelling(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    nested = make_agent(alice, bot, "pre-canned", meta={"stickiness": 0.7, "default_message": "Hi", "bias": 0.1})
    assert nested["meta"] == {
        "model": DEFAULT_MODEL,
        "temperature": 0,
        "bias": 0.1,
        "stickness": 0.7,
        "default_message": "Hi",
    }
    flat_wins = make_agent(
        alice, bot, "background", tags=[], meta={"temperature": 0.9, "model": "gpt-5-4k"}, temperature=0.1
    )
    assert flat_wins["meta"] == {"model": "gpt-5-4k", "temperature": 0.1, "tags": []}
    both = make_agent(alice, bot, "user-facing", stickness=0.2, stickiness=0.9)
    assert both["meta"]["stickness"] == 0.2


def test_model_and_temperature_apply_to_every_type(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    for type_ in TYPES:
        agent = make_agent(alice, bot, type_, model="gpt-4.1-mini-16k", temperature=1)
        assert (agent["meta"]["model"], agent["meta"]["temperature"]) == ("gpt-4.1-mini-16k", 1)


def test_negative_bias_of_a_human_escalation_agent_round_trips(alice: Api) -> None:
    # The hosted service itself shows a negative bias on human-escalation agents.
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot, "human-escalation", bias=-0.4)
    assert agent["meta"]["bias"] == -0.4
    again = alice.ok(alice.post(f"/agent/{agent['uuid']}/update", {"meta": agent["meta"]}))
    assert again["meta"] == agent["meta"]


def test_background_tags(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    tags = [{"name": "lead", "criteria": "asks for a quote", "color": "#1A2b3C"}, {"name": "angry", "color": "#000000"}]
    agent = make_agent(alice, bot, "background", tags=tags)
    assert agent["meta"]["tags"] == [tags[0], {"name": "angry", "criteria": "", "color": "#000000"}]


CREATE_ERRORS = [
    ({"type": "user-facing"}, "name"),
    ({"name": "", "type": "user-facing"}, "name"),
    ({"name": "x"}, "type"),
    ({"name": "x", "type": "supervisor"}, "type"),
    ({"name": "x", "type": "user-facing", "model": "gpt-4o-mini"}, "model"),
    ({"name": "x", "type": "user-facing", "model": "gpt-4o-mini-5k"}, "model"),
    ({"name": "x", "type": "user-facing", "temperature": 1.5}, "temperature"),
    ({"name": "x", "type": "user-facing", "temperature": -0.1}, "temperature"),
    ({"name": "x", "type": "user-facing", "temperature": "0.5"}, "temperature"),
    ({"name": "x", "type": "user-facing", "temperature": True}, "temperature"),
    ({"name": "x", "type": "user-facing", "meta": {"temperature": 2}}, "temperature"),
    ({"name": "x", "type": "user-facing", "stickness": 1.01}, "stickness"),
    ({"name": "x", "type": "user-facing", "stickiness": -1}, "stickness"),
    ({"name": "x", "type": "user-facing", "bias": 1.5}, "bias"),
    ({"name": "x", "type": "user-facing", "bias": -1.5}, "bias"),
    ({"name": "x", "type": "user-facing", "use_all_sources": "yes"}, "use_all_sources"),
    ({"name": "x", "type": "background", "tags": [{"name": "t", "color": "red"}]}, "tags.0.color"),
    ({"name": "x", "type": "background", "tags": [{"name": "", "color": "#ffffff"}]}, "tags.0.name"),
    ({"name": "x", "type": "background", "tags": [{"name": "t"}]}, "tags.0.color"),
    ({"name": "x", "type": "background", "tags": {"name": "t"}}, "tags"),
    ({"name": "x", "type": "user-facing", "tags": []}, "tags"),
    ({"name": "x", "type": "background", "default_message": "Hi"}, "default_message"),
    ({"name": "x", "type": "pre-canned", "use_all_sources": True}, "use_all_sources"),
    ({"name": "x", "type": "background", "bias": 0.5}, "bias"),
    ({"name": "x", "type": "background", "meta": {"stickness": 0.5}}, "stickness"),
    (
        {"name": "x", "type": "user-facing", "human_escalation_settings": {"sound_enabled": 0}},
        "human_escalation_settings",
    ),
    ({"name": "x", "type": "user-facing", "variables": [{"name": "1st"}]}, "variables.0.name"),
    ({"name": "x", "type": "user-facing", "variables": [{"name": "a"}, {"name": "a"}]}, "variables"),
    ({"name": "x", "type": "user-facing", "variables": [{"name": "a", "type": "date"}]}, "variables.0.type"),
    ({"name": "x", "type": "user-facing", "data_source_uuids": ["nope"]}, "data_source_uuids.0"),
]


@pytest.mark.parametrize(("body", "field"), CREATE_ERRORS)
def test_create_rejects_invalid_bodies_and_writes_nothing(alice: Api, body: dict[str, Any], field: str) -> None:
    bot = alice.chatbot()["uuid"]
    error = assert_error(alice.post(f"/chatbot/{bot}/agent/create", body), 422, "validation_error")
    assert any(detail["field"] == field for detail in error["details"]), error
    assert len(agents(alice, bot)) == 1


def test_a_key_for_another_type_is_named_in_the_error(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    error = assert_error(
        alice.post(f"/chatbot/{bot}/agent/create", {"name": "x", "type": "user-facing", "tags": []}),
        422,
        "validation_error",
    )
    assert "tags" in error["error"] and "user-facing" in error["error"]


@pytest.mark.parametrize("type_", ["human-escalation", "spam-defense"])
def test_one_agent_of_a_limited_type_per_chatbot(alice: Api, db: Db, type_: str) -> None:
    bot = alice.chatbot()["uuid"]
    first = make_agent(alice, bot, type_)
    before = count(db, Agent)
    assert_error(alice.post(f"/chatbot/{bot}/agent/create", {"name": "again", "type": type_}), 409, "agent_type_limit")
    assert count(db, Agent) == before
    make_agent(alice, alice.chatbot()["uuid"], type_)  # the limit is per chatbot
    alice.ok(alice.delete(f"/agent/{first['uuid']}/delete"))
    make_agent(alice, bot, type_)


def test_other_types_have_no_limit(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    for type_ in ("user-facing", "background", "pre-canned"):
        make_agent(alice, bot, type_)
        make_agent(alice, bot, type_)
    assert len(agents(alice, bot)) == 7


def test_list_is_in_creation_order_without_variables(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    created = [make_agent(alice, bot, type_, name=type_) for type_ in TYPES]
    listed = agents(alice, bot)
    assert [agent["uuid"] for agent in listed[1:]] == [agent["uuid"] for agent in created]
    for agent, original in zip(listed[1:], created, strict=True):
        assert_agent(agent, original["type"], variables=False)
        assert agent == {key: value for key, value in original.items() if key != "variables"}
    assert agents(alice, alice.chatbot()["uuid"])[0]["name"] == "General Q&A"


# Update.


def test_update_answers_enabled_as_a_boolean_and_changes_only_given_fields(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot, "user-facing", description="d", prompt="p", bias=0.2)
    updated = alice.ok(
        alice.post(f"/agent/{agent['uuid']}/update", {"name": "Renamed", "enabled": True, "temperature": 0.5})
    )
    assert_agent(updated, "user-facing")
    assert updated["enabled"] is True
    assert (updated["name"], updated["description"], updated["prompt"]) == ("Renamed", "d", "p")
    assert updated["meta"] == {"model": DEFAULT_MODEL, "temperature": 0.5, "use_all_sources": False, "bias": 0.2}
    assert updated["created_at"] == agent["created_at"]
    fetched = alice.ok(alice.get(f"/agent/{agent['uuid']}"))
    assert fetched == {**updated, "enabled": 1}
    assert agents(alice, bot)[1]["enabled"] == 1
    disabled = alice.ok(alice.post(f"/agent/{agent['uuid']}/update", {"enabled": 0}))
    assert disabled["enabled"] is False
    assert agents(alice, bot)[1]["enabled"] == 0


def test_update_accepts_no_body_empty_body_nulls_and_extra_keys(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot, "user-facing", prompt="keep")
    path = f"/api/v1/agent/{agent['uuid']}/update"
    for response in (
        alice.client.post(path, headers=alice.auth),
        alice.client.post(path, headers={**alice.auth, "Content-Type": "application/json"}),
        alice.post(f"/agent/{agent['uuid']}/update", {}),
        alice.post(f"/agent/{agent['uuid']}/update", {"prompt": None, "meta": None, "type": "background", "x": 1}),
    ):
        assert alice.ok(response) == {**agent, "enabled": False}


UPDATE_ERRORS = [
    ("user-facing", {"name": ""}, "name"),
    ("user-facing", {"enabled": "on"}, "enabled"),
    ("user-facing", {"model": "gpt-4o"}, "model"),
    ("user-facing", {"temperature": 3}, "temperature"),
    ("user-facing", {"meta": {"bias": -2}}, "bias"),
    ("user-facing", {"tags": []}, "tags"),
    ("user-facing", {"default_message": "x"}, "default_message"),
    ("user-facing", {"human_escalation_settings": {}}, "human_escalation_settings"),
    ("background", {"use_all_sources": True}, "use_all_sources"),
    ("background", {"bias": 0.1}, "bias"),
    ("pre-canned", {"tags": [{"name": "a", "color": "#000000"}]}, "tags"),
    (
        "human-escalation",
        {"human_escalation_settings": {"sound_enabled": 2}},
        "human_escalation_settings.sound_enabled",
    ),
    (
        "human-escalation",
        {"human_escalation_settings": {"monitored_messages": "help"}},
        "human_escalation_settings.monitored_messages",
    ),
    ("user-facing", {"variables": [{"name": "a", "default_value": {"static": 5}}]}, "variables.0.default_value.static"),
    ("user-facing", {"variables": {"name": "a"}}, "variables"),
    ("user-facing", {"data_source_uuids": "abc"}, "data_source_uuids"),
]


@pytest.mark.parametrize(("type_", "body", "field"), UPDATE_ERRORS)
def test_update_rejects_invalid_bodies_and_changes_nothing(
    alice: Api, type_: str, body: dict[str, Any], field: str
) -> None:
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot, type_)
    error = assert_error(
        alice.post(f"/agent/{agent['uuid']}/update", {"prompt": "changed", **body}), 422, "validation_error"
    )
    assert any(detail["field"] == field for detail in error["details"]), error
    assert alice.ok(alice.get(f"/agent/{agent['uuid']}")) == agent


def test_variables_are_normalised_and_replaced_wholesale(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot, variables=[{"name": "email"}])
    assert agent["variables"] == [
        {
            "name": "email",
            "description": "",
            "type": "string",
            "example": "",
            "default_value": {"content": "", "static": 0},
        }
    ]
    given = [
        {
            "name": "plan",
            "description": "The plan",
            "type": "number",
            "example": "3",
            "default_value": {"content": "1", "static": True},
        },
        {"name": "_vip", "type": "boolean", "description": None, "default_value": {"static": 1}},
    ]
    updated = alice.ok(alice.post(f"/agent/{agent['uuid']}/update", {"variables": given}))
    assert [set(variable) for variable in updated["variables"]] == [VARIABLE_KEYS, VARIABLE_KEYS]
    assert updated["variables"][0] == {**given[0], "default_value": {"content": "1", "static": 1}}
    assert updated["variables"][1] == {
        "name": "_vip",
        "description": "",
        "type": "boolean",
        "example": "",
        "default_value": {"content": "", "static": 1},
    }
    assert alice.ok(alice.post(f"/agent/{agent['uuid']}/update", {"variables": []}))["variables"] == []


def test_human_escalation_settings_merge(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot, "human-escalation")
    path = f"/agent/{agent['uuid']}/update"
    first = alice.ok(
        alice.post(path, {"human_escalation_settings": {"monitored_messages": ["refund"], "sound_enabled": False}})
    )
    assert first["human_escalation_settings"] == {
        **ESCALATION_DEFAULTS,
        "monitored_messages": ["refund"],
        "sound_enabled": 0,
    }
    second = alice.ok(
        alice.post(
            path,
            {
                "human_escalation_settings": {
                    "human_requested_message": "Wait",
                    "notifications_enabled": 0,
                    "sound_enabled": None,
                }
            },
        )
    )
    assert second["human_escalation_settings"] == {
        **ESCALATION_DEFAULTS,
        "monitored_messages": ["refund"],
        "sound_enabled": 0,
        "human_requested_message": "Wait",
        "notifications_enabled": 0,
    }
    assert (
        alice.ok(alice.get(f"/agent/{agent['uuid']}"))["human_escalation_settings"]
        == second["human_escalation_settings"]
    )


def test_type_specific_settings_merge_into_meta(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    canned = make_agent(alice, bot, "spam-defense", stickness=0.5)
    updated = alice.ok(
        alice.post(f"/agent/{canned['uuid']}/update", {"default_message": "No spam", "meta": {"bias": 0.3}})
    )
    assert updated["meta"] == {
        "model": DEFAULT_MODEL,
        "temperature": 0,
        "stickness": 0.5,
        "bias": 0.3,
        "default_message": "No spam",
    }
    background = make_agent(alice, bot, "background", tags=[{"name": "a", "color": "#000000"}])
    tags = [{"name": "b", "criteria": "c", "color": "#FFFFFF"}]
    assert alice.ok(alice.post(f"/agent/{background['uuid']}/update", {"tags": tags}))["meta"]["tags"] == tags


# Data sources.


def test_data_source_selection_and_use_all_sources(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    a, b, c = (add_source(db, bot, title) for title in "abc")
    agent = make_agent(alice, bot, use_all_sources=True)
    path = f"/agent/{agent['uuid']}/update"
    only_a = alice.ok(alice.post(path, {"data_source_uuids": [a], "use_all_sources": False}))
    assert (only_a["data_source_uuids"], only_a["meta"]["use_all_sources"]) == ([a], False)
    ordered = alice.ok(alice.post(path, {"data_source_uuids": [c, a, c, b]}))
    assert (ordered["data_source_uuids"], ordered["meta"]["use_all_sources"]) == ([c, a, b], False)
    everything = alice.ok(alice.post(path, {"use_all_sources": True}))
    assert (everything["data_source_uuids"], everything["meta"]["use_all_sources"]) == ([c, a, b], True)
    kept = alice.ok(alice.post(path, {"data_source_uuids": [b]}))
    assert (kept["data_source_uuids"], kept["meta"]["use_all_sources"]) == ([b], True)
    assert agents(alice, bot)[1]["data_source_uuids"] == [b]
    assert alice.ok(alice.post(path, {"data_source_uuids": []}))["data_source_uuids"] == []
    created = make_agent(alice, bot, data_source_uuids=[b, a])
    assert (created["data_source_uuids"], created["meta"]["use_all_sources"]) == ([b, a], False)


def test_a_deleted_source_leaves_the_agents_selection(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    a, b = add_source(db, bot, "a"), add_source(db, bot, "b")
    agent = make_agent(alice, bot, data_source_uuids=[a, b])

    async def drop(session: AsyncSession) -> None:
        await session.delete(await session.get(DataSource, a))

    db.run(drop)
    assert alice.ok(alice.get(f"/agent/{agent['uuid']}"))["data_source_uuids"] == [b]


def test_sources_of_another_chatbot_or_account_are_404_and_change_nothing(alice: Api, bob: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    own = add_source(db, bot)
    other_bot = add_source(db, alice.chatbot("other")["uuid"])
    foreign = add_source(db, bob.chatbot()["uuid"])
    agent = make_agent(alice, bot, data_source_uuids=[own])
    path = f"/agent/{agent['uuid']}/update"
    bodies = []
    for bad in (other_bot, foreign, MISSING):
        response = alice.post(path, {"data_source_uuids": [own, bad], "use_all_sources": True, "name": "changed"})
        assert_not_found(response)
        bodies.append(response.json())
        created = alice.post(
            f"/chatbot/{bot}/agent/create", {"name": "n", "type": "user-facing", "data_source_uuids": [bad]}
        )
        assert_not_found(created)
    assert bodies[0] == bodies[1] == bodies[2] == {"error": "Data source not found", "code": "not_found"}
    assert alice.ok(alice.get(f"/agent/{agent['uuid']}")) == agent
    assert len(agents(alice, bot)) == 2


# Deletion, isolation, models.


def test_delete_removes_the_agent_its_functions_and_selection(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot, data_source_uuids=[add_source(db, bot)])
    function = {"name": "lookup", "external_url": "https://api.example.com/x"}
    alice.ok(alice.post(f"/agent/{agent['uuid']}/function/create", function))
    assert alice.ok(alice.delete(f"/agent/{agent['uuid']}/delete")) == {"success": True}
    assert_not_found(alice.get(f"/agent/{agent['uuid']}"))
    assert_not_found(alice.delete(f"/agent/{agent['uuid']}/delete"))
    assert (count(db, ToolFunction), count(db, AgentDataSource)) == (0, 0)
    assert [a["name"] for a in agents(alice, bot)] == ["General Q&A"]


def test_deleting_the_chatbot_removes_its_agents_and_functions(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    keep = alice.chatbot("keep")["uuid"]
    agent = make_agent(alice, bot, "background", data_source_uuids=[add_source(db, bot)])
    alice.ok(alice.post(f"/agent/{agent['uuid']}/function/create", {"name": "f", "external_url": "http://example.com"}))
    assert (count(db, Agent), count(db, ToolFunction), count(db, AgentDataSource)) == (3, 1, 1)
    alice.ok(alice.delete(f"/chatbot/{bot}/delete"))
    assert (count(db, Agent), count(db, ToolFunction), count(db, AgentDataSource)) == (1, 0, 0)
    assert len(agents(alice, keep)) == 1


def test_missing_and_foreign_agents_are_identical_404_and_stay_unchanged(alice: Api, bob: Api) -> None:
    bob_bot = bob.chatbot()["uuid"]
    theirs = make_agent(bob, bob_bot, "human-escalation", variables=[{"name": "v"}])
    for uuid in (theirs["uuid"], MISSING, "not-a-uuid"):
        responses = [
            alice.get(f"/agent/{uuid}"),
            alice.post(f"/agent/{uuid}/update", {"name": "mine", "enabled": True}),
            alice.post(f"/agent/{uuid}/update"),
            alice.delete(f"/agent/{uuid}/delete"),
            alice.post(f"/agent/{uuid}/function/create", {"name": "f", "external_url": "https://example.com"}),
        ]
        for response in responses:
            assert_not_found(response)
            assert response.json() == {"error": "Agent not found", "code": "not_found"}
    for path in (f"/chatbot/{bob_bot}/agents", f"/chatbot/{MISSING}/agents"):
        assert_not_found(alice.get(path))
    for bot in (bob_bot, MISSING):
        assert_not_found(alice.post(f"/chatbot/{bot}/agent/create", {"name": "x", "type": "user-facing"}))
    assert bob.ok(bob.get(f"/agent/{theirs['uuid']}")) == theirs
    assert len(agents(bob, bob_bot)) == 2


@pytest.mark.parametrize("type_", ["human-escalation", "spam-defense"])
def test_concurrent_creates_of_a_limited_type_make_one_agent(alice: Api, db: Db, type_: str) -> None:
    bot = alice.chatbot()["uuid"]
    account = db.run(lambda session: session.scalar(select(Chatbot.account_uuid).where(Chatbot.uuid == bot)))
    assert account is not None

    async def attempt(index: int) -> str:
        try:
            async with db.database.transaction() as session:
                await service.create(session, account, bot, AgentCreate(name=f"agent {index}", type=type_))
        except AppError as error:
            return error.code.value
        return "created"

    async def race() -> list[str]:
        return await asyncio.gather(*(attempt(index) for index in range(8)))

    assert db.client.portal is not None
    assert sorted(db.client.portal.call(race)) == ["agent_type_limit"] * 7 + ["created"]
    assert [agent["type"] for agent in agents(alice, bot)] == ["user-facing", type_]
