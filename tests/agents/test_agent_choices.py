"""A pre-canned agent's `choices` (Botyard's own meta key), both databases: kept trimmed, shown in its meta only once
set, given flat or nested in `meta`, stored with its reply in the message's `meta_json.choices`; invalid ones refused
whole (422 `validation_error`, type `choices_invalid`, a message that says the rule) with nothing written; other agent
types refuse the key."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import func, select

from botyard.models import Agent
from tests.support.agents import agent, disable_default, make_agent
from tests.support.api import Api, assert_error
from tests.support.chat import ask, messages, new_session
from tests.support.database import Db


def test_a_pre_canned_agents_choices_are_kept_shown_once_set_and_go_with_its_reply(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    plain = make_agent(alice, bot, "pre-canned", "Plain")
    assert "choices" not in plain["meta"]  # the hosted shape, unchanged for an agent without them
    made = make_agent(alice, bot, "pre-canned", "Desk", choices=[" Opening hours ", "Prices"])
    assert made["meta"]["choices"] == ["Opening hours", "Prices"]
    nested = alice.ok(alice.post(f"/agent/{made['uuid']}/update", {"meta": {"choices": ["Prices", "Parking"]}}))
    assert nested["meta"]["choices"] == ["Prices", "Parking"]
    [listed] = [item for item in alice.ok(alice.get(f"/chatbot/{bot}/agents")) if item["uuid"] == made["uuid"]]
    assert listed["meta"]["choices"] == ["Prices", "Parking"]
    disable_default(alice, bot)
    alice.ok(alice.post(f"/agent/{made['uuid']}/update", {"enabled": True}))
    session = new_session(alice, bot)
    assert ask(alice, session, "Hello").status_code == 200
    [message] = messages(alice, session)
    assert json.loads(message["meta_json"])["choices"] == ["Prices", "Parking"]
    cleared = alice.ok(alice.post(f"/agent/{made['uuid']}/update", {"choices": []}))
    assert cleared["meta"]["choices"] == []


@pytest.mark.parametrize(
    ("choices", "says"),
    [
        ([f"Choice {number}" for number in range(11)], "at most 10 choices; 11 were given"),
        (["Fine", "x" * 81], "each choice is 1 to 80 characters long"),
        (["Fine", "   "], "each choice is 1 to 80 characters long"),
        (["Same", " Same"], "each choice must differ from the others"),
        (["Fine", 3], "choices must be a list of strings"),
        ("Opening hours", "choices must be a list of strings"),
    ],
    ids=["eleven", "too-long", "blank", "twice", "not-a-string", "not-a-list"],
)
def test_invalid_choices_are_refused_whole_with_a_stable_code_and_nothing_written(
    alice: Api, db: Db, choices: Any, says: str
) -> None:
    bot = alice.chatbot()["uuid"]
    kept = agent(alice, bot, "pre-canned", "Desk", choices=["Prices"])
    before = db.run(lambda s: s.scalar(select(func.count()).select_from(Agent)))
    create = {"name": "Other", "type": "pre-canned", "choices": choices}
    for response in (
        alice.post(f"/chatbot/{bot}/agent/create", create),
        alice.post(f"/agent/{kept}/update", {"name": "Renamed", "choices": choices}),
    ):
        refused = assert_error(response, 422, "validation_error")
        assert refused["details"][0]["field"] == "choices" and refused["details"][0]["type"] == "choices_invalid"
        assert says in refused["error"]
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(Agent))) == before
    [stored] = [item for item in alice.ok(alice.get(f"/chatbot/{bot}/agents")) if item["uuid"] == kept]
    assert stored["name"] == "Desk" and stored["meta"]["choices"] == ["Prices"]


@pytest.mark.parametrize("type_", ["user-facing", "spam-defense", "human-escalation", "background"])
def test_choices_are_a_pre_canned_agents_only(alice: Api, type_: str) -> None:
    bot = alice.chatbot()["uuid"]
    body = {"name": "Other", "type": type_, "choices": ["Prices"]}
    refused = assert_error(alice.post(f"/chatbot/{bot}/agent/create", body), 422, "validation_error")
    assert refused["details"] == [
        {"field": "choices", "message": f"does not apply to {type_} agents", "type": "not_applicable"}
    ]
