"""The review queue never changes knowledge the owner has not seen, and lists only gaps, on both databases, offline
with the bundled embedder (issue 46, items 11 and 12): an item names the Q&A pair a fix would replace, with its
question and answer, and offers replacing only the question's own pair; a replace request for any other pair is
refused and changes nothing; a hand-off a person took and answered is not in the queue; questions one answer does
not serve are not grouped, even when a follow-up borrowed the other one's words."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.unanswered.grouping import normalised
from tests.support.agents import PERSON, agent
from tests.support.api import Api, assert_error
from tests.support.chat import ask, messages, new_session
from tests.support.jobs import process
from tests.support.review import asked, queue, rated_down
from tests.support.sources import qa, sources, upload

DISCOUNTS = b"""# Discounts

Pensioners get a discount of 15 percent on every treatment, on showing their pension card at the Harbour Street
clinic.
"""
INSURANCE = (
    "Do you accept health insurance?",
    "Yes, we bill every public health insurance directly. Please bring your policy number and your pension or "
    "insurance card to every treatment.",
)
PENSIONERS = "Is there a discount for pensioners?"
JO = "Hi, this is Jo at reception: I have booked you in for Tuesday at 10, see you then!"


@pytest.fixture
def practice(alice: Api) -> dict[str, str]:
    bot: str = alice.chatbot("Practice", visibility="public")["uuid"]
    insurance: str = qa(alice, bot, *INSURANCE)["uuid"]
    upload(alice, bot, "discounts.md", DISCOUNTS)
    process(alice.client)
    return {"bot": bot, "insurance": insurance}


def pair_of(api: Api, bot: str, uuid: str) -> dict[str, Any]:
    [found] = [each for each in sources(api, bot) if each["uuid"] == uuid]
    return found


def qa_pairs(api: Api, bot: str) -> list[dict[str, Any]]:
    return [each for each in sources(api, bot) if each["type"] == "qa"]


def test_the_questions_own_pair_is_offered_and_replaced_only_when_named(alice: Api, client: TestClient) -> None:
    bot: str = alice.chatbot("Shop", visibility="public")["uuid"]
    question = "Do you sell gift vouchers?"
    pair: str = qa(alice, bot, question, "Yes, gift vouchers of 25 or 50 EUR.")["uuid"]
    process(alice.client)
    _, down = rated_down(client, bot, "Do you sell gift vouchers")
    [group] = queue(alice, bot)["groups"]
    assert group["items"][0]["qa_pair"] == {
        "uuid": pair,
        "question": question,
        "answer": "Yes, gift vouchers of 25 or 50 EUR.",
        "same_question": True,
    }
    better = "Yes: gift vouchers of 25, 50 or 100 EUR."
    fixed = alice.ok(
        alice.post(f"/chatbot/{bot}/review/fix", {"message_uuids": [down], "answer": better, "data_source_uuid": pair})
    )
    assert fixed["data_source"]["uuid"] == pair and len(qa_pairs(alice, bot)) == 1


def test_a_pair_the_answers_did_not_quote_is_not_offered(alice: Api, practice: dict[str, str]) -> None:
    bot = practice["bot"]
    other: str = qa(alice, bot, "Do you treat horses?", "No, people only.")["uuid"]
    process(alice.client)
    refused = asked(alice, bot, "Do you treat horses")  # answered by that pair: quoted, the same question
    assert refused["uuid"]
    own = alice.post(
        f"/chatbot/{bot}/review/fix",
        {"message_uuids": [refused["uuid"]], "answer": "No.", "data_source_uuid": practice["insurance"]},
    )
    assert_error(own, 409, "qa_pair_not_offered")
    fixed = alice.post(
        f"/chatbot/{bot}/review/fix",
        {"message_uuids": [refused["uuid"]], "answer": "No, people only; ask a vet.", "data_source_uuid": other},
    )
    assert alice.ok(fixed)["data_source"]["uuid"] == other


def test_a_hand_off_a_person_took_and_answered_is_not_in_the_queue(alice: Api, practice: dict[str, str]) -> None:
    bot = practice["bot"]
    agent(alice, bot, "human-escalation", "Reception", PERSON)
    taken = asked(alice, bot, "I want to talk to a real person please")
    waiting = asked(alice, bot, "Can I speak to a human, please?")
    found = queue(alice, bot)
    assert {item["message_uuid"] for group in found["groups"] for item in group["items"]} == {
        taken["uuid"],
        waiting["uuid"],
    }
    session = taken["session_uuid"]
    alice.ok(alice.post(f"/session/{session}/live-chat/start"))
    assert queue(alice, bot)["items"] == 2  # taken, not answered yet
    alice.ok(alice.post(f"/session/{session}/live-chat/message", {"text": JO}))
    found = queue(alice, bot)
    items = [item for group in found["groups"] for item in group["items"]]
    assert [item["message_uuid"] for item in items] == [waiting["uuid"]] and found["items"] == 1
    assert all(item["operator_reply"] is None for item in items)  # Jo's reply to one visitor is offered to nobody
    unanswered = alice.ok(alice.get(f"/chatbot/{bot}/unanswered"))
    assert unanswered["questions"] == 1 and unanswered["groups"][0]["question"] == "Can I speak to a human, please?"


def test_questions_one_answer_does_not_serve_are_not_grouped(alice: Api, practice: dict[str, str]) -> None:
    """The trial's case: one visitor asked about horses, then about bitcoin; the second, short, was searched with the
    first's words ("Can I pay in bitcoin? treat horses")."""
    bot = practice["bot"]
    session = new_session(alice, bot)
    for question in ("Do you treat horses?", "Can I pay in bitcoin?"):
        assert ask(alice, session, question).status_code == 200
    assert len(messages(alice, session)) == 2
    again = asked(alice, bot, "Do you treat horses")
    groups = queue(alice, bot)["groups"]
    by_question = {normalised(group["question"]): group for group in groups}
    assert set(by_question) == {"do you treat horses", "can i pay in bitcoin"}, groups
    assert by_question["do you treat horses"]["count"] == 2
    assert again["uuid"] in {item["message_uuid"] for item in by_question["do you treat horses"]["items"]}
    unanswered = alice.ok(alice.get(f"/chatbot/{bot}/unanswered"))["groups"]
    assert sorted(group["count"] for group in unanswered) == [1, 2]
