"""An offline answer quotes only what is about the question, and lists (and counts as cited) only what it quotes:
the newcomer's trial of a clinic, where the insurance pair's sentences rode along under answers about discounts
and cancellations and the pair was listed under their sources and counted as cited in analytics (issue 46, item
14). A passage quoted beside the best one must be about the question by itself, as the relevance decision judges
a chunk (`quote.ON_SUBJECT`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.api import Api
from tests.support.chat import ask, messages, new_session
from tests.support.jobs import process
from tests.support.sources import qa, upload

INSURANCE = (
    "Do you accept health insurance?",
    "Yes, we accept most private and public health insurance plans. Please bring your policy number and your "
    "insurance card to every appointment.",
)
PAIRS = [
    INSURANCE,
    (
        "What are your opening hours?",
        "We are open Monday to Friday from 8 am to 6 pm, and on Saturdays from 9 am to 1 pm.",
    ),
    ("How do I book an appointment?", "You can book online on our website or call reception on 020 7946 0000."),
]
CLINIC = b"""# Cancellation policy

If you cannot come, please cancel at least 24 hours before your appointment. Late cancellations and missed
appointments are charged 25 euros.

# Parking and directions

Our clinic is at 12 Elm Street. Free parking for patients is available in the courtyard behind the building. The
nearest bus stop is Elm Street Square.

# Discounts

Pensioners and students receive a 10% discount on all treatments.
"""

STRAYED = ["Any reductions for retired people?", "Any price cut for seniors?"]
"""Asked in other words than the knowledge's: before, the insurance pair rode along on its cosine alone."""
ANSWERED = [
    *STRAYED,
    "Is there a discount for pensioners?",
    "Can I cancel my appointment?",
    "How late can I cancel?",
    "What if something comes up and I cannot attend?",
    "Where can I park?",
    "How do I get to the clinic?",
]


@pytest.fixture
def clinic(alice: Api) -> str:
    bot: str = alice.chatbot("Clinic", show_citations=True)["uuid"]
    for question, reply in PAIRS:
        qa(alice, bot, question, reply)
    upload(alice, bot, "clinic.md", CLINIC)
    process(alice.client)
    return bot


def asked(alice: Api, bot: str, question: str) -> tuple[str, dict[str, Any]]:
    """The stored reply to `question` in a new session, and its citations."""
    session = new_session(alice, bot)
    assert ask(alice, session, question).status_code == 200
    reply = messages(alice, session)[-1]
    return reply["response"], json.loads(reply["cite_data_json"] or "{}")


@pytest.mark.parametrize("question", ANSWERED)
def test_an_answer_carries_no_sentence_of_the_insurance_pair(alice: Api, clinic: str, question: str) -> None:
    text, cited = asked(alice, clinic, question)
    assert cited, f"the question is answered from the knowledge: {text}"
    assert "insurance" not in text and "policy number" not in text, text
    assert INSURANCE[0] not in [entry["title"] for entry in cited.values()], text


def test_the_insurance_question_still_gets_its_pair(alice: Api, clinic: str) -> None:
    text, cited = asked(alice, clinic, "Do you take my insurance?")
    assert "policy number" in text, text
    assert [entry["title"] for entry in cited.values()] == [INSURANCE[0]]


def test_analytics_count_as_cited_only_the_sources_quoted(alice: Api, clinic: str) -> None:
    for question in STRAYED:
        asked(alice, clinic, question)
    top = alice.ok(alice.get(f"/chatbot/{clinic}/analytics"))["top_sources"]
    assert [source["title"] for source in top] == ["Cancellation policy"], top
    assert top[0]["count"] == len(STRAYED)
