"""Conversation outcomes through the API on both databases, offline: derived by rules from what the answers store
(`answering.turn.outcomes`), shown in the owner's conversation overview and counted as a resolution rate per day in
analytics."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.support.agents import PERSON, agent
from tests.support.api import Api
from tests.support.chat import ask, new_session, sse_events
from tests.support.jobs import process
from tests.support.sources import qa, upload
from tests.support.widget import give_feedback, widget_ask, widget_session

VOUCHERS = ("Do you sell gift vouchers?", "Yes, gift vouchers of 25, 50 or 100 EUR are sold at reception.")
CLINIC = b"""# Discounts

Patients over 65 get a senior discount of 10 percent on every treatment at our Harbour Street clinic.
"""


@pytest.fixture
def clinic(alice: Api) -> str:
    bot: str = alice.chatbot("Clinic", visibility="public")["uuid"]
    qa(alice, bot, *VOUCHERS)
    upload(alice, bot, "clinic.md", CLINIC)
    process(alice.client)
    return bot


def conversation(api: Api, bot: str, *questions: str) -> str:
    session = new_session(api, bot)
    for question in questions:
        assert ask(api, session, question).status_code == 200
    return session


def outcomes(api: Api, bot: str) -> dict[str, tuple[Any, Any]]:
    listed = api.ok(api.get(f"/chatbot/{bot}/conversations"))
    return {found["uuid"]: (found["outcome"], found["outcome_reason"]) for found in listed}


def test_each_conversation_has_the_outcome_its_answers_decide(alice: Api, clinic: str, client: TestClient) -> None:
    resolved = conversation(alice, clinic, "Do you offer botox?", VOUCHERS[0])  # the last answer decides
    refused = conversation(alice, clinic, VOUCHERS[0], "Do you offer botox injections?")
    unsure = conversation(alice, clinic, "Is there a student discount?")
    greeted = conversation(alice, clinic, "hi")  # no question: no outcome
    not_what_i_asked = conversation(alice, clinic, VOUCHERS[0], "That's not what I asked about my botox")
    chat = widget_session(client, clinic)
    end = sse_events(widget_ask(client, chat, VOUCHERS[0]).text)[-1]
    assert give_feedback(client, chat, end[1]["message_uuid"], {"rating": "down"}).status_code == 200
    agent(alice, clinic, "human-escalation", "Human hand-off", PERSON)
    asked_after_doubt = conversation(alice, clinic, "Is there a student discount?", "I want to talk to a real person")
    asked = conversation(alice, clinic, VOUCHERS[0], "I want to talk to a real person please")
    found = outcomes(alice, clinic)
    assert found[resolved] == ("resolved", None)
    assert found[refused] == ("unresolved", "no_answer")
    assert found[unsure] == ("unresolved", "unsure")
    assert found[greeted] == (None, None)
    assert found[not_what_i_asked][0] == "unresolved"
    assert found[chat] == ("unresolved", "thumbs_down")
    assert found[asked_after_doubt] == ("handed_off", "unsure")  # why the visitor wanted a person
    assert found[asked] == ("handed_off", "visitor_asked")
    # A hand-off stays one: a confident answer after it does not undo it.
    assert ask(alice, asked, VOUCHERS[0]).status_code == 200
    assert outcomes(alice, clinic)[asked] == ("handed_off", "visitor_asked")


def test_an_operator_taking_over_hands_the_conversation_off(alice: Api, clinic: str) -> None:
    session = conversation(alice, clinic, VOUCHERS[0])
    assert outcomes(alice, clinic)[session] == ("resolved", None)
    alice.ok(alice.post(f"/session/{session}/live-chat/start", {}))
    assert outcomes(alice, clinic)[session] == ("handed_off", "operator")


def test_analytics_count_the_resolution_rate_per_day(alice: Api, clinic: str) -> None:
    conversation(alice, clinic, VOUCHERS[0])
    conversation(alice, clinic, "What discount do patients over 65 get?")
    conversation(alice, clinic, "Do you offer botox injections?")
    conversation(alice, clinic, "hi")
    found = alice.ok(alice.get(f"/chatbot/{clinic}/analytics"))
    totals = found["totals"]
    assert (totals["conversations"], totals["resolved"], totals["unresolved"]) == (4, 2, 1)
    assert totals["resolution_rate"] == round(2 / 3, 4)
    [today] = [day for day in found["days"] if day["conversations"]]
    assert (today["resolved"], today["unresolved"], today["resolution_rate"]) == (2, 1, round(2 / 3, 4))


def test_the_json_export_carries_the_outcome(alice: Api, clinic: str) -> None:
    session = conversation(alice, clinic, "Do you offer botox injections?")
    response = alice.get(f"/session/{session}/export", params={"format": "json"})
    [exported] = response.json()
    assert (exported["outcome"], exported["outcome_reason"]) == ("unresolved", "no_answer")
