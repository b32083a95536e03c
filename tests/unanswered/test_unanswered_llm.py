"""Unanswered questions with a model (the fake OpenAI-compatible server on loopback; keyword search only, so no
vectors: grouping by equal text alone): the model's no-answer sentence is recorded, an answer on evidence the
relevance decision turns down is recorded as low-confidence, a well-founded answer is not. The rules themselves
(`answering.turn.gaps`), on their numbers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from botyard.answering.turn.gaps import low_confidence
from botyard.answering.turn.records import says_no_answer
from botyard.identity.accounts.service import issue_key
from botyard.retrieval.relevance import Assessment, Reason, Strictness
from tests.support.api import Api
from tests.support.apps import llm_app
from tests.support.chat import ask, new_session
from tests.support.database import Db, backend_params
from tests.support.fake_llm import FakeLlm, Reply
from tests.support.jobs import process

GIFT_CARDS = ("Do you offer gift cards?", "Yes, gift cards of 10, 25 and 50 euros.")


@pytest.fixture(scope="module", params=backend_params())
def llm_client(
    request: pytest.FixtureRequest, llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    with llm_app(request.param, tmp_path_factory.mktemp("botyard-llm"), llm.url) as client:
        yield client


@pytest.fixture
def shop(llm_client: TestClient, llm: FakeLlm) -> tuple[Api, str]:
    Db(llm_client).wipe()
    api = Api(llm_client, Db(llm_client).run(lambda session: issue_key(session, "owner@example.com")).key)
    bot: str = api.chatbot()["uuid"]
    api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": GIFT_CARDS[0], "answer": GIFT_CARDS[1]}))
    process(llm_client)
    llm.forget()
    return api, bot


def groups(api: Api, bot: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = api.ok(api.get(f"/chatbot/{bot}/unanswered"))["groups"]
    return found


def test_the_models_no_answer_sentence_is_recorded(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, bot = shop
    llm.script(Reply(tokens=("I am sorry: ", DEFAULT_NO_ANSWER_MESSAGE.lower())))
    assert ask(api, new_session(api, bot), "Do you repair bicycles?").status_code == 200
    [group] = groups(api, bot)
    assert (group["question"], group["reasons"]) == ("Do you repair bicycles?", {"model_no_answer": 1})


def test_an_answer_the_relevance_decision_turns_down_is_low_confidence_and_a_founded_one_is_not_recorded(
    shop: tuple[Api, str], llm: FakeLlm
) -> None:
    api, bot = shop
    question = "Which cards do you take?"
    found = api.ok(api.post(f"/chatbot/{bot}/retrieve", {"query": question, "top_k": 8}))
    assert found["chunks"] and not found["relevant"], "the premise: a hit the decision turns down"
    llm.script(Reply(tokens=("We take gift cards.",)), Reply(tokens=("Gift cards of 10, 25 and 50 euros.",)))
    session = new_session(api, bot)
    assert ask(api, session, question).status_code == 200
    assert ask(api, new_session(api, bot), GIFT_CARDS[0]).status_code == 200
    [group] = groups(api, bot)
    assert (group["question"], group["reasons"], group["count"]) == (question, {"low_confidence": 1}, 1)
    assert group["session_uuids"] == [session]


def test_small_talk_a_model_answers_is_not_recorded(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, bot = shop
    llm.script(Reply(tokens=("Hello! How can I help you today?",)))
    assert ask(api, new_session(api, bot), "Hi, how are you?").status_code == 200
    assert groups(api, bot) == []


def _decision(score: float, required: float) -> Assessment:
    return Assessment(score >= required, Reason.MATCHED if score >= required else Reason.WEAK_MATCH, score, required)


@pytest.mark.parametrize(
    ("score", "required", "strictness", "low"),
    [
        (0.45, 0.4, Strictness.BALANCED, True),  # answered, but strict (0.55) would refuse it
        (0.55, 0.4, Strictness.BALANCED, False),
        (0.35, 0.3, Strictness.LOOSE, True),  # below balanced's 0.4
        (0.42, 0.3, Strictness.LOOSE, False),
        (0.6, 0.55, Strictness.STRICT, False),  # nothing is stricter than strict
        (0.5, 0.55, Strictness.STRICT, True),  # only a model answers below the bar
        (0.6, 0.7, Strictness.BALANCED, True),  # the bar here (unrelated questions reach 0.7) is above strict's
    ],
)
def test_low_confidence_is_below_the_next_stricter_level(
    score: float, required: float, strictness: Strictness, low: bool
) -> None:
    assert low_confidence(_decision(score, required), strictness) is low


def test_the_no_answer_sentence_is_found_whatever_its_case_and_punctuation() -> None:
    sentences = ["", "Sorry, I cannot find related information in my reference documents."]
    assert says_no_answer("sorry i cannot find related information in my reference documents", sentences)
    assert says_no_answer("Hm. Sorry,  I cannot find related information in my reference documents!", sentences)
    assert not says_no_answer("Sorry, the shop is closed on Sundays.", sentences)
    assert not says_no_answer("", sentences)
