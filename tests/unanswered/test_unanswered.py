"""Unanswered questions, offline, through the API on both databases with the bundled embedder: a refused question
is recorded with its answer (an answered one is not), repeats and paraphrases group together, answering a group adds
a Q&A source after which the same question is answered (and not recorded again), dismissing, another account's
chatbot, bad input."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from botyard.models import UnansweredQuestion
from tests.support.agents import disable_default
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_timestamp, assert_uuid
from tests.support.chat import ask, messages, new_session
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.sources import qa, source

VOUCHERS = ("Do you sell gift vouchers?", "Yes, gift vouchers of 25, 50 or 100 EUR are sold at reception.")
BOTOX = "Do you offer botox injections?"


@pytest.fixture
def clinic(alice: Api) -> str:
    bot: str = alice.chatbot("Clinic")["uuid"]
    qa(alice, bot, *VOUCHERS)
    process(alice.client)
    return bot


def listing(api: Api, bot: str, **params: Any) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get(f"/chatbot/{bot}/unanswered", params=params))
    return found


def groups(api: Api, bot: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = listing(api, bot)["groups"]
    return found


def asked(api: Api, bot: str, *questions: str) -> str:
    """Ask the questions in order in one new session; the session's uuid."""
    session = new_session(api, bot)
    for question in questions:
        assert ask(api, session, question).status_code == 200
    return session


def asked_apart(api: Api, bot: str, *questions: str) -> list[str]:
    """Ask each question in a session of its own (no follow-up context); the sessions' uuids."""
    return [asked(api, bot, question) for question in questions]


def stored(db: Db) -> list[UnansweredQuestion]:
    async def go(session: AsyncSession) -> list[UnansweredQuestion]:
        return list(await session.scalars(select(UnansweredQuestion)))

    return db.run(go)


def test_a_refused_question_is_recorded_with_its_answer_and_an_answered_one_is_not(
    alice: Api, clinic: str, db: Db
) -> None:
    session = asked(alice, clinic, VOUCHERS[0], BOTOX)
    answered, refused = messages(alice, session)
    assert "100 EUR" in answered["response"] and refused["response"] == DEFAULT_NO_ANSWER_MESSAGE
    found = listing(alice, clinic)
    assert found["total"] == 1 and found["questions"] == 1 and found["capped"] is False
    [group] = found["groups"]
    assert group == {
        "uuid": group["uuid"],
        "question": BOTOX,
        "resolved": None,
        "count": 1,
        "reasons": {"refused": 1},
        "language": "en",
        "first_asked": group["first_asked"],
        "last_asked": group["first_asked"],
        "variants": [],
        "session_uuids": [session],
        "question_uuids": [group["uuid"]],
    }
    assert_uuid(group["uuid"])
    assert_timestamp(group["first_asked"])
    [row] = stored(db)
    assert (row.message_uuid, row.session_uuid, row.chatbot_uuid) == (refused["uuid"], session, clinic)
    assert row.score is not None and row.required is not None and row.score < row.required
    assert row.vector is not None and row.embedder, "the search's own vector is kept: grouping embeds nothing"


def test_identical_repeats_and_paraphrases_group_together_with_their_count(alice: Api, clinic: str) -> None:
    sessions = asked_apart(
        alice,
        clinic,
        BOTOX,
        "Where can I park my car?",
        "do you offer BOTOX injections??",
        "Can I get botox here?",
        BOTOX,
    )
    [botox, parking] = groups(alice, clinic)
    assert botox["count"] == 4 and botox["question"] == BOTOX, "the most asked wording leads"
    assert botox["variants"] == ["Can I get botox here?"], "an identical repeat (case and punctuation aside) is none"
    assert botox["session_uuids"] == [sessions[4], sessions[3], sessions[2], sessions[0]]
    assert len(botox["question_uuids"]) == 4 and botox["question_uuids"][0] == botox["uuid"]
    assert botox["first_asked"] <= botox["last_asked"]
    assert (parking["count"], parking["question"]) == (1, "Where can I park my car?")


def test_answering_a_group_adds_a_qa_and_the_same_question_is_then_answered_and_not_recorded(
    alice: Api, clinic: str
) -> None:
    asked_apart(alice, clinic, "Can I get botox here?", BOTOX)
    [group] = groups(alice, clinic)
    assert group["question"] == BOTOX, "of wordings asked as often, the newest leads"
    body = {"question_uuids": group["question_uuids"], "answer": "Yes: botox injections are given on Tuesdays."}
    answered = alice.ok(alice.post(f"/chatbot/{clinic}/unanswered/answer", body))
    assert answered["resolved"] == 2
    qa_source = answered["data_source"]
    assert (qa_source["type"], qa_source["title"], qa_source["status"]) == ("qa", BOTOX, "queued")
    assert groups(alice, clinic) == []
    process(alice.client)
    assert source(alice, qa_source["uuid"])["status"] == "success"

    session = asked(alice, clinic, BOTOX)
    assert "Tuesdays" in messages(alice, session)[-1]["response"]
    assert groups(alice, clinic) == [], "answered now: not recorded again"
    again = alice.post(f"/chatbot/{clinic}/unanswered/answer", body)
    assert_not_found(again)  # already answered: nothing open to answer


def test_the_owner_may_word_the_qa_question(alice: Api, clinic: str) -> None:
    asked(alice, clinic, "botox??")
    [group] = groups(alice, clinic)
    body = {"question_uuids": group["question_uuids"], "question": BOTOX, "answer": "On Tuesdays."}
    assert alice.ok(alice.post(f"/chatbot/{clinic}/unanswered/answer", body))["data_source"]["title"] == BOTOX


def test_dismissing_a_group_removes_it_and_adds_nothing(alice: Api, clinic: str) -> None:
    asked_apart(alice, clinic, BOTOX, BOTOX, "Where can I park my car?")
    botox, parking = groups(alice, clinic)
    dismissed = alice.ok(
        alice.post(f"/chatbot/{clinic}/unanswered/dismiss", {"question_uuids": botox["question_uuids"]})
    )
    assert dismissed == {"dismissed": 2}
    assert groups(alice, clinic) == [parking]
    assert len(alice.ok(alice.get(f"/chatbot/{clinic}/data-sources"))) == 1
    assert_not_found(alice.post(f"/chatbot/{clinic}/unanswered/dismiss", {"question_uuids": botox["question_uuids"]}))


def test_no_enabled_agent_is_recorded_as_no_agent(alice: Api, clinic: str) -> None:
    disable_default(alice, clinic)
    asked(alice, clinic, VOUCHERS[0])
    [group] = groups(alice, clinic)
    assert group["reasons"] == {"no_agent": 1}


def test_the_listing_takes_a_time_window_and_pages(alice: Api, clinic: str) -> None:
    asked_apart(alice, clinic, BOTOX, BOTOX, "Where can I park my car?")
    assert listing(alice, clinic, start_timestamp="2100-01-01")["groups"] == []
    assert len(listing(alice, clinic, end_timestamp="2100-01-01")["groups"]) == 2
    assert [g["count"] for g in listing(alice, clinic, limit=1, offset=1)["groups"]] == [1]
    assert listing(alice, clinic, limit=1)["total"] == 2


def test_another_accounts_chatbot_and_questions_answer_404(alice: Api, bob: Api, clinic: str) -> None:
    asked(alice, clinic, BOTOX)
    [group] = groups(alice, clinic)
    bobs_bot = bob.chatbot()["uuid"]
    body = {"question_uuids": group["question_uuids"], "answer": "Hijacked."}
    assert_not_found(bob.get(f"/chatbot/{clinic}/unanswered"))
    for action in ("answer", "dismiss"):
        assert_not_found(bob.post(f"/chatbot/{clinic}/unanswered/{action}", body))
        assert_not_found(bob.post(f"/chatbot/{bobs_bot}/unanswered/{action}", body))  # not his chatbot's questions
        assert_not_found(alice.post(f"/chatbot/{MISSING}/unanswered/{action}", body))
    assert groups(alice, clinic) == [group]
    assert len(alice.ok(alice.get(f"/chatbot/{clinic}/data-sources"))) == 1 and groups(bob, bobs_bot) == []


@pytest.mark.parametrize(
    "body",
    [
        {"answer": "No uuids."},
        {"question_uuids": [], "answer": "None."},
        {"question_uuids": ["not-a-uuid"], "answer": "Bad."},
        {"question_uuids": [MISSING], "answer": "   "},
        {"question_uuids": [MISSING]},
    ],
)
def test_a_bad_answer_body_is_a_422(alice: Api, clinic: str, body: dict[str, Any]) -> None:
    assert_error(alice.post(f"/chatbot/{clinic}/unanswered/answer", body), 422, "validation_error")


def test_a_bad_listing_parameter_is_a_422(alice: Api, clinic: str) -> None:
    for params in ({"start_timestamp": "yesterday"}, {"limit": 0}, {"offset": -1}):
        assert_error(alice.get(f"/chatbot/{clinic}/unanswered", params=params), 422, "validation_error")
