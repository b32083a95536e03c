"""Session documents with a language model: the fake OpenAI-compatible server on loopback records the prompt.

The official SDK's case: a 563-token story in a session of a `gpt-4o-mini-32k` agent reaches the model whole, 100
copies of it are refused with the first exact reply (the model is not asked), a document that fits alone but not
beside the earlier one gets the second, and the session answers normally afterwards.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.identity.accounts.service import issue_key
from botyard.session_documents.budget import TOO_LONG, TOO_LONG_WITH_EARLIER
from tests.support.api import Api, assert_error
from tests.support.apps import llm_app
from tests.support.chat import messages, new_session
from tests.support.database import Db, backend_params
from tests.support.fake_llm import FakeLlm, Reply
from tests.support.session_documents import PNG, STORY, send, upload_document, upload_response

QUESTION = "Whose stapler vanished?"


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLlm]:
    with FakeLlm(Reply(tokens=("It was", " Sarah's stapler."))) as server:
        yield server


@pytest.fixture(scope="module", params=backend_params())
def llm_client(
    request: pytest.FixtureRequest, llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    with llm_app(request.param, tmp_path_factory.mktemp("botyard-docs"), llm.url, max_upload_mb=1) as client:
        yield client


@pytest.fixture
def chat(llm_client: TestClient, llm: FakeLlm) -> tuple[Api, str]:
    """An account, a chatbot whose only agent answers with `gpt-4o-mini-32k`, and a session; the fake's log empty."""
    Db(llm_client).wipe()
    api = Api(llm_client, Db(llm_client).run(lambda session: issue_key(session, "owner@example.com")).key)
    bot = api.chatbot()["uuid"]
    [agent] = api.ok(api.get(f"/chatbot/{bot}/agents"))
    api.ok(api.post(f"/agent/{agent['uuid']}/update", {"model": "gpt-4o-mini-32k"}))
    llm.forget()
    return api, new_session(api, bot)


def last_prompt(llm: FakeLlm) -> Any:
    return llm.requests[-1].messages[-1]["content"]


def test_the_story_reaches_the_model_whole_and_the_answer_follows(chat: tuple[Api, str], llm: FakeLlm) -> None:
    api, session = chat
    story = upload_document(api)
    response = send(api, session, QUESTION, story)
    assert response.status_code == 200 and response.text == "It was Sarah's stapler."
    prompt = last_prompt(llm)
    assert "<session_documents>" in prompt and STORY.split("\n\n")[1].split("\n")[0] in prompt
    assert "Sarah's red stapler vanished" in prompt and QUESTION in prompt
    assert "<session_documents>" in llm.requests[-1].messages[0]["content"]  # the rule: documents are data
    # The next message still sends the story.
    send(api, session, "And who bought a lock?")
    assert "Sarah's red stapler vanished" in last_prompt(llm)
    stored = messages(api, session)
    assert stored[0]["response"] == "It was Sarah's stapler."
    assert [message["session_documents"] for message in stored] == [[{"uuid": story, "name": "story.txt"}]] * 2


def test_too_long_documents_get_the_exact_replies_without_asking_the_model(chat: tuple[Api, str], llm: FakeLlm) -> None:
    api, session = chat
    hundred = upload_document(api, "hundred.txt", "\n\n".join([STORY] * 100))
    refused = send(api, session, QUESTION, hundred)
    assert refused.status_code == 200 and refused.text == TOO_LONG
    assert refused.headers["content-type"] == "text/plain; charset=utf-8"
    assert llm.requests == []
    earlier = upload_document(api, "earlier.txt", "\n\n".join([STORY] * 30))  # ~17k tokens: fits alone
    assert send(api, session, QUESTION, earlier).text == "It was Sarah's stapler."
    later = upload_document(api, "later.txt", "\n\n".join([STORY] * 30))
    asked = len(llm.requests)
    assert send(api, session, QUESTION, later).text == TOO_LONG_WITH_EARLIER
    assert len(llm.requests) == asked
    # The session goes on, with the earlier document and without the refused ones.
    assert send(api, session, "Who found a note?").text == "It was Sarah's stapler."
    prompt = last_prompt(llm)
    assert prompt.count("<session_document name=") == 1 and 'name="earlier.txt"' in prompt
    stored = messages(api, session)
    assert [message["response"] for message in stored][0::2] == [TOO_LONG, TOO_LONG_WITH_EARLIER]
    assert [len(message["session_documents"]) for message in stored] == [0, 1, 0, 1]


def test_an_image_reaches_the_model_as_an_image_part(chat: tuple[Api, str], llm: FakeLlm) -> None:
    api, session = chat
    image = upload_document(api, "receipt.png", PNG, content_type="image/png")
    assert send(api, session, "What does the receipt say?", image).status_code == 200
    content = last_prompt(llm)
    assert isinstance(content, list)
    text, part = content
    assert text["type"] == "text" and 'name="receipt.png"' in text["text"]
    assert part == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()},
    }


def test_a_file_over_the_upload_cap_is_refused(chat: tuple[Api, str]) -> None:
    api, _ = chat
    assert_error(upload_response(api, "big.txt", b"a" * (1024 * 1024 + 1)), 413, "payload_too_large")
