"""The trial's case of issue 46 (item 11) with a model (the fake OpenAI-compatible server on loopback, keyword
search only): "Is there a discount for pensioners?" is answered from the discounts document and carries a sentence
of the insurance pair. The review item names that pair as another question's; replacing it is refused and changes
nothing; the fix adds a pair and the insurance pair answers as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.identity.accounts.service import issue_key
from tests.support.api import Api, assert_error
from tests.support.apps import llm_app
from tests.support.chat import sse_events
from tests.support.database import Db, backend_params
from tests.support.fake_llm import FakeLlm, Reply
from tests.support.jobs import process
from tests.support.sources import qa, sources, upload
from tests.support.widget import give_feedback, widget_ask, widget_session

DISCOUNTS = b"""# Discounts

Pensioners get a discount of 15 percent on every treatment, on showing their pension card at the Harbour Street
clinic.
"""
INSURANCE = (
    "Do you accept health insurance?",
    "Yes, we bill every public health insurance directly. Please bring your policy number to every treatment; "
    "pensioners their pension card too.",
)
PENSIONERS = "Is there a discount for pensioners?"
STRAY = "Pensioners get 15 percent off every treatment [1.1]. Please bring your policy number [2.1]."


@pytest.fixture(scope="module", params=backend_params())
def llm_client(
    request: pytest.FixtureRequest, llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    with llm_app(request.param, tmp_path_factory.mktemp("botyard-review-llm"), llm.url) as client:
        yield client


@pytest.fixture
def practice(llm_client: TestClient, llm: FakeLlm) -> tuple[Api, str, str]:
    Db(llm_client).wipe()
    api = Api(llm_client, Db(llm_client).run(lambda session: issue_key(session, "owner@example.com")).key)
    bot: str = api.chatbot("Practice", visibility="public", show_citations=True)["uuid"]
    insurance: str = qa(api, bot, *INSURANCE)["uuid"]
    upload(api, bot, "discounts.md", DISCOUNTS)
    process(llm_client)
    llm.forget()
    return api, bot, insurance


def pair_of(api: Api, bot: str, uuid: str) -> dict[str, Any]:
    [found] = [each for each in sources(api, bot) if each["uuid"] == uuid]
    return found


def test_the_fix_of_an_answer_with_a_stray_sentence_leaves_that_pair_alone_and_adds_one(
    practice: tuple[Api, str, str], llm: FakeLlm
) -> None:
    api, bot, insurance = practice
    llm.script(Reply(tokens=(STRAY,)))
    chat = widget_session(api.client, bot)
    down: str = sse_events(widget_ask(api.client, chat, PENSIONERS).text)[-1][1]["message_uuid"]
    assert give_feedback(api.client, chat, down, {"rating": "down"}).status_code == 200
    [group] = api.ok(api.get(f"/chatbot/{bot}/review"))["groups"]
    [item] = group["items"]
    assert item["qa_source_uuid"] == insurance, item  # the premise: the reply quoted the insurance pair
    assert item["qa_pair"] == {
        "uuid": insurance,
        "question": INSURANCE[0],
        "answer": INSURANCE[1],
        "same_question": False,
    }

    before = pair_of(api, bot, insurance)
    fix = f"/chatbot/{bot}/review/fix"
    answer = "Yes: pensioners get 15 percent off every treatment, on showing their pension card."
    refused = api.post(fix, {"message_uuids": [down], "answer": answer, "data_source_uuid": insurance})
    assert_error(refused, 409, "qa_pair_not_offered")
    assert "data_source_uuid" in refused.json()["error"]
    assert pair_of(api, bot, insurance) == before and len(sources(api, bot)) == 2  # nothing was written
    assert len(api.ok(api.get(f"/chatbot/{bot}/review"))["groups"]) == 1  # nor closed

    fixed = api.ok(api.post(fix, {"message_uuids": [down], "answer": answer}))
    assert fixed["closed"] == 1 and fixed["data_source"]["uuid"] != insurance
    assert fixed["data_source"]["title"] == PENSIONERS
    process(api.client)
    pair = json.loads(api.ok(api.get(f"/data-source/{insurance}"))["meta_json"])
    assert (pair["question"], pair["answer"]) == INSURANCE
    assert len([each for each in sources(api, bot) if each["type"] == "qa"]) == 2
    assert api.ok(api.get(f"/chatbot/{bot}/review"))["groups"] == []
