"""A new chatbot hands a visitor who asks for a person to the account's people who take conversations, without a
human-escalation agent and with the one default agent the spec shows (issue 46, item 13): the operator sees the
request in the inbox and the event stream; without anyone there the visitor is offered the contact form (never "my
reference documents"); the owner can turn it off, and the dashboard says what it does. Real app, both databases."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from botyard.chatbots.handoff.service import DEFAULT_AFTER_HOURS_MESSAGE
from botyard.models import Role
from botyard.models.agent_meta import DEFAULT_ESCALATION_SETTINGS
from tests.support.api import Api
from tests.support.database import Db
from tests.support.handoff import answer_text, office_hours, operator_events
from tests.support.jobs import process
from tests.support.paths import SOURCE
from tests.support.people import person
from tests.support.sources import qa
from tests.support.widget import open_bot, widget_ask, widget_session

PROMISED = DEFAULT_ESCALATION_SETTINGS["human_requested_message"]
ASKED = ["Can I speak to a real person?", "Ich möchte bitte mit einem Mitarbeiter sprechen", "我想和真人客服说话"]


def new_bot(api: Api) -> str:
    bot = open_bot(api)
    qa(api, bot, "What are your opening hours?", "We are open Monday to Friday from 9 to 5.")
    process(api.client)
    return bot


def waiting(api: Api, bot: str) -> list[str]:
    return [s["uuid"] for s in api.ok(api.get(f"/chatbot/{bot}/sessions", params={"human_requested": 1}))]


@pytest.mark.parametrize("request_", ASKED)
def test_a_new_chatbot_hands_a_request_for_a_person_to_an_operator(
    alice: Api, client: TestClient, db: Db, request_: str
) -> None:
    person(client, db, "alice@example.com", "jo@example.com", Role.OPERATOR)
    bot = new_bot(alice)
    agents = alice.ok(alice.get(f"/chatbot/{bot}/agents"))
    assert [agent["type"] for agent in agents] == ["user-facing"]  # still the spec's one default agent
    chat = widget_session(client, bot)
    text = answer_text(widget_ask(client, chat, request_))
    assert text == PROMISED if request_ == ASKED[0] else text and text != DEFAULT_NO_ANSWER_MESSAGE, text
    assert waiting(alice, bot) == [chat]  # in the operators' inbox
    events = operator_events(alice, bot, "human_requested")
    assert (events[-1]["type"], events[-1]["session_uuid"]) == ("human_requested", chat)
    assert alice.ok(alice.get(f"/chatbot/{bot}/agents")) == agents


def test_ordinary_questions_stay_with_the_default_agent(alice: Api, client: TestClient, db: Db) -> None:
    person(client, db, "alice@example.com", "jo@example.com", Role.OPERATOR)
    bot = new_bot(alice)
    chat = widget_session(client, bot)
    assert "Monday to Friday" in answer_text(widget_ask(client, chat, "When are you open?"))
    assert waiting(alice, bot) == []


def test_without_anyone_there_the_visitor_is_offered_the_contact_form(alice: Api, client: TestClient, db: Db) -> None:
    bot = new_bot(alice)  # an account of API keys alone: nobody takes conversations
    chat = widget_session(client, bot)
    text = answer_text(widget_ask(client, chat, ASKED[0]))
    assert text == DEFAULT_AFTER_HOURS_MESSAGE and "reference documents" not in text
    assert client.get(f"/api/v1/widget/session/{chat}/contact").json() == {"offered": True, "sent": False}
    assert waiting(alice, bot) == []

    jo = person(client, db, "alice@example.com", "jo@example.com", Role.OPERATOR)
    jo.ok(jo.post("/auth/availability", {"away": True}))
    away = widget_session(client, bot)
    assert answer_text(widget_ask(client, away, ASKED[0])) == DEFAULT_AFTER_HOURS_MESSAGE  # everyone is away
    jo.ok(jo.post("/auth/availability", {"away": False}))
    back = widget_session(client, bot)
    assert answer_text(widget_ask(client, back, ASKED[0])) == PROMISED
    assert waiting(alice, bot) == [back]


def test_the_owner_can_turn_it_off(alice: Api, client: TestClient, db: Db) -> None:
    person(client, db, "alice@example.com", "jo@example.com", Role.OPERATOR)
    bot = new_bot(alice)
    assert alice.ok(alice.get(f"/chatbot/{bot}/office-hours"))["hand_off_requests"] is True
    assert office_hours(alice, bot, hand_off_requests=False)["hand_off_requests"] is False
    chat = widget_session(client, bot)
    assert answer_text(widget_ask(client, chat, ASKED[0])) == DEFAULT_NO_ANSWER_MESSAGE
    assert waiting(alice, bot) == []


def test_the_dashboard_shows_the_setting() -> None:
    script = (SOURCE / "web/static/dashboard/handoff-settings.js").read_text()
    assert "hand_off_requests" in script and "When a visitor asks for a person" in script


@pytest.mark.parametrize(
    "question",
    [
        "Do you offer botox?",
        "Can someone help me with my invoice?",
        "Who is the dentist?",
    ],
)
def test_a_question_that_mentions_no_one_is_not_handed_off(
    alice: Api, client: TestClient, db: Db, question: str
) -> None:
    """A request must be as clear as spam must be spam: "Do you offer botox?" was 0.37 from a request for a person."""
    person(client, db, "alice@example.com", "jo@example.com", Role.OPERATOR)
    bot = new_bot(alice)
    chat = widget_session(client, bot)
    assert answer_text(widget_ask(client, chat, question)) not in (PROMISED, DEFAULT_AFTER_HOURS_MESSAGE)
    assert waiting(alice, bot) == []


def test_what_the_knowledge_answers_is_answered_not_handed_off(alice: Api, client: TestClient, db: Db) -> None:
    """07's question about the workshop's ways mentions a call and reads like a request for one to the vectors (0.76):
    the knowledge answers it, so the built-in hand-off leaves it to the default agent; a real request still goes."""
    person(client, db, "alice@example.com", "jo@example.com", Role.OPERATOR)
    bot = open_bot(alice)
    qa(
        alice,
        bot,
        "Ruft ihr mich vor teuren Zusatzarbeiten an?",
        "Ja. Bevor wir Zusatzarbeiten über 50 Euro beginnen, rufen wir Sie an und holen Ihr Einverständnis ein.",
    )
    process(alice.client)
    chat = widget_session(client, bot)
    text = answer_text(
        widget_ask(client, chat, "Legt ihr bei teuren Zusatzarbeiten einfach los, ohne mich vorher anzurufen?")
    )
    assert "50 Euro" in text, text
    assert waiting(alice, bot) == []
    asking = widget_session(client, bot)
    assert answer_text(widget_ask(client, asking, ASKED[1])) not in ("", DEFAULT_NO_ANSWER_MESSAGE)
    assert waiting(alice, bot) == [asking]
