"""Honest answers offline, through the API on both databases: a reply is confident, unsure or no answer, stored as
`meta_json.confidence` and sent in the SSE `end` event. An unsure reply says what it found nothing about, first, in
the visitor's language, quotes the closest passage, and offers a person when a hand-off agent is enabled."""

from __future__ import annotations

import json
from typing import Any

import pytest

from botyard.answering.offline.confidence import Confidence, judge
from tests.support.agents import agent
from tests.support.api import Api
from tests.support.chat import ask, messages, new_session, sse_events
from tests.support.jobs import process
from tests.support.sources import upload

CLINIC = b"""# Discounts

Patients over 65 get a senior discount of 10 percent on every treatment at our Harbour Street clinic.
Children under 12 are treated free of charge when they come with a parent who is a patient.

# Opening hours

The Harbour Street clinic is open Monday to Friday from 8 am to 6 pm.

# Family

Two high chairs wait at the Harbour Street clinic for patients who bring a small child along.

# Implants

Every implant we place carries a guarantee of 10 years, provided you attend a check-up once a year.
"""

PRAXIS = """# Rabatte

Patienten über 65 Jahre bekommen einen Seniorenrabatt von 10 Prozent auf jede Behandlung in unserer Praxis.
Kinder unter 12 Jahren werden kostenlos behandelt, wenn ein Elternteil Patient ist.

# Öffnungszeiten

Die Praxis ist montags bis freitags von 8 bis 18 Uhr geöffnet.
""".encode()


@pytest.fixture
def clinic(alice: Api) -> str:
    bot: str = alice.chatbot("Clinic")["uuid"]
    upload(alice, bot, "clinic.md", CLINIC)
    process(alice.client)
    return bot


def _asked(api: Api, bot: str, question: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The reply's text, its stored `meta_json` and its SSE `end` event."""
    session = new_session(api, bot)
    response = ask(api, session, question, Accept="text/event-stream")
    assert response.status_code == 200
    events = sse_events(response.text)
    text = "".join(data["text"] for name, data in events if name == "delta")
    [end] = [data for name, data in events if name == "end"]
    meta: dict[str, Any] = json.loads(messages(api, session)[-1]["meta_json"])
    return text, meta, end


def test_a_question_about_something_the_knowledge_never_names_gets_an_unsure_reply(alice: Api, clinic: str) -> None:
    text, meta, end = _asked(alice, clinic, "Is there a student discount?")
    frame, _, quote = text.partition("\n\n")
    assert frame == "I couldn't find anything about “student”. The closest I found:"
    assert "senior discount of 10 percent" in quote
    assert meta["confidence"] == end["confidence"] == "low"
    assert meta["doubt"]["unnamed"] == ["student"]
    assert "person" not in text and "choices" not in meta  # no hand-off agent: no offer of one


def test_a_covered_question_is_answered_confidently_without_a_frame(alice: Api, clinic: str) -> None:
    text, meta, end = _asked(alice, clinic, "Is there a discount for seniors?")
    assert text.startswith("Patients over 65 get a senior discount")
    assert meta["confidence"] == end["confidence"] == "high"


def test_a_quote_that_states_what_was_asked_for_answers_the_asking_words(alice: Api, clinic: str) -> None:
    """ "How long" is nowhere in the knowledge, but a quote that states a length of time answers it."""
    text, meta, _ = _asked(alice, clinic, "How long is the guarantee?")
    assert text.startswith("Every implant we place carries a guarantee of 10 years")
    assert meta["confidence"] == "high"


def test_how_a_question_is_asked_is_no_doubt(alice: Api, clinic: str) -> None:
    """ "somewhere", "near" and "something" are in English's wide stop-word list: they say how the question is
    asked; without the rule both replies opened with "I couldn't find anything about “somewhere, near”"."""
    for question in ("Is there somewhere near you where something like a senior discount applies?",):
        text, meta, end = _asked(alice, clinic, question)
        assert "senior discount of 10 percent" in text
        assert meta["confidence"] == end["confidence"] == "high", text


def test_two_words_of_the_knowledge_written_as_one_are_named(alice: Api, clinic: str) -> None:
    """ "highchairs" is in no chunk, but "high chairs" is: the knowledge names it, so the reply is sure."""
    text, meta, _ = _asked(alice, clinic, "Do you have highchairs for a small child?")
    assert text.startswith("Two high chairs wait at the Harbour Street clinic")
    assert meta["confidence"] == "high"


def test_an_uncovered_question_is_refused_with_no_confidence(alice: Api, clinic: str) -> None:
    text, meta, end = _asked(alice, clinic, "Who won the football World Cup in 2018?")
    assert text == "Sorry, I cannot find related information in my reference documents."
    assert meta["confidence"] == end["confidence"] == "none"


def test_the_unsure_frame_is_in_the_visitors_language(alice: Api) -> None:
    bot: str = alice.chatbot("Praxis")["uuid"]
    upload(alice, bot, "praxis.md", PRAXIS)
    process(alice.client)
    text, meta, end = _asked(alice, bot, "Bekommen Studenten einen Rabatt?")
    frame, _, quote = text.partition("\n\n")
    assert frame == "Zu „Studenten“ habe ich nichts gefunden. Am nächsten kommt dies:"
    assert "Seniorenrabatt" in quote  # the quote stays as written
    assert meta["confidence"] == end["confidence"] == "low"


def test_an_unsure_reply_offers_a_person_when_a_hand_off_agent_is_enabled(alice: Api, clinic: str) -> None:
    agent(alice, clinic, "human-escalation", "Human hand-off", "Talk to a real person, a human operator, staff")
    text, meta, _ = _asked(alice, clinic, "Is there a student discount?")
    assert text.endswith("\n\nIf you'd like, I can put you in touch with a person.")
    assert meta["confidence"] == "low"
    assert meta["choices"] == ["Talk to a person"]  # the offer's choice, a button on the channels
    _, sure, _ = _asked(alice, clinic, "Is there a discount for seniors?")
    assert sure["confidence"] == "high" and "choices" not in sure


def test_the_decision_names_its_reasons() -> None:
    weights = {"student": 4.0, "discount": 2.0}
    unsure = judge(weights, {"student", "discount"}, {"student"}, [{"discount", "senior"}])
    assert unsure.confidence is Confidence.LOW and unsure.lacking == ("student",)
    assert unsure.meta()["doubt"] == {"lacking": ["student"], "unnamed": ["student"], "lacking_share": 0.667}
    # The same word used elsewhere in the knowledge is reported, not decisive; an incidental unnamed word that
    # weighs less than half of the question is no doubt either.
    elsewhere = judge(weights, {"student", "discount"}, set(), [{"discount"}])
    assert elsewhere.confidence is Confidence.HIGH and elsewhere.lacking == ("student",)
    minor = judge({"sister": 4.0, "gift": 3.0, "card": 3.0}, {"sister", "gift", "card"}, {"sister"}, [{"gift", "card"}])
    assert minor.confidence is Confidence.HIGH
    # Words a follow-up borrowed from earlier turns are not the question's own: they never make it unsure.
    borrowed = judge(weights, {"discount"}, {"student"}, [{"discount"}])
    assert borrowed.confidence is Confidence.HIGH and borrowed.meta() == {"confidence": "high"}
