"""The official SDK's way through the API, end to end: every object it reads is built as `Cls(**json)` with exactly
its field lists (`tests.support.sdk`): a chatbot, its agents, data sources (a Q&A pair with a link, an uploaded file),
a source tag, a session, a session document, a streamed answer, the messages and their citations. Offline and with
the fake OpenAI-compatible model, on both databases."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from botyard.identity.accounts.service import issue_key
from tests.support.api import Api
from tests.support.apps import llm_app
from tests.support.chat import new_session
from tests.support.database import Db, backend_params
from tests.support.fake_llm import FakeLlm, Reply
from tests.support.jobs import process
from tests.support.sdk import (
    SdkAgent,
    SdkChatbot,
    SdkDataSource,
    SdkSession,
    SdkSessionSummary,
    SdkSourceTag,
    as_sdk,
)
from tests.support.session_documents import send, upload_document
from tests.support.sources import upload_response

RETURNS = "You can return any item within 30 days of delivery for a full refund."
LINK = "https://help.example.com/returns"
ANSWER = "Returns are free within 30 days [1.1]."


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLlm]:
    with FakeLlm(Reply(tokens=("Returns are free", " within 30 days [1.1]."))) as server:
        yield server


@pytest.fixture(scope="module", params=backend_params())
def llm_client(
    request: pytest.FixtureRequest, llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    with llm_app(request.param, tmp_path_factory.mktemp("botyard-sdk"), llm.url) as client:
        yield client


def sdk_flow(api: Api) -> tuple[str, list[dict[str, object]]]:
    """Everything the SDK's own tests touch, each read as the SDK reads it; the answer and the stored messages."""
    bot = SdkChatbot(**api.ok(api.post("/chatbot/create", {"name": "Shop", "show_citations": True}))).uuid
    assert SdkChatbot(**api.ok(api.get(f"/chatbot/{bot}"))).meta["show_citations"] is True
    [general] = [SdkAgent(**agent) for agent in api.ok(api.get(f"/chatbot/{bot}/agents"))]
    assert general.meta["model"] and "temperature" in general.meta
    # As the SDK's session-document test: a model of 16k context or more reads session documents.
    api.ok(api.post(f"/agent/{general.uuid}/update", {"model": "gpt-4o-mini-32k"}))
    body = {"question": "How long do I have to return an item?", "answer": RETURNS, "reference_source_link": LINK}
    pair = api.ok(api.post(f"/chatbot/{bot}/data-source/qa", body))
    file = api.ok(upload_response(api, bot, "hours.txt", b"The shop opens at nine and closes at six."))
    process(api.client)
    sources = [SdkDataSource(**source) for source in api.ok(api.get(f"/chatbot/{bot}/data-sources"))]
    assert {source.uuid for source in sources} == {pair["uuid"], file["uuid"]}
    assert {source.status for source in sources} == {"success"} and all(source.tokens > 0 for source in sources)
    tag = SdkSourceTag(**api.ok(api.post(f"/chatbot/{bot}/source-tag/create", {"name": "policy", "color": "#00AA00"})))
    assert tag.data_source_uuids == []
    chat = new_session(api, bot)
    SdkSessionSummary(**api.ok(api.post(f"/chatbot/{bot}/session/create")))
    assert SdkSession(**api.ok(api.get(f"/session/{chat}"))).uuid == chat
    note = upload_document(api, "note.txt", "My order number is A-17 and it arrived broken.")
    answer = send(api, chat, "How long do I have to return an item?", note)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    stored = api.ok(api.get(f"/session/{chat}/messages"))
    for message in stored:
        as_sdk(message)
        assert as_sdk(api.ok(api.get(f"/message/{message['uuid']}"))) == as_sdk(message)
    assert stored[-1]["session_documents"] == [{"uuid": note, "name": "note.txt"}]
    return answer.text, stored


def test_the_sdk_way_offline(alice: Api) -> None:
    text, [message] = sdk_flow(alice)
    assert "30 days" in text and message["response"] == text
    [entry] = json.loads(message["cite_data_json"]).values()  # built as the SDK's citation by `as_sdk`
    assert RETURNS in entry["text"] and json.loads(message["meta_json"])["citation_links"] == {"1.1": LINK}


def test_the_sdk_way_with_a_model(llm_client: TestClient, llm: FakeLlm) -> None:
    Db(llm_client).wipe()
    api = Api(llm_client, Db(llm_client).run(lambda session: issue_key(session, "sdk@example.com")).key)
    llm.forget()
    text, [message] = sdk_flow(api)
    assert text == ANSWER and message["response"] == ANSWER and message["error_message"] == ""
    prompt = str(llm.requests[-1].messages[-1]["content"])
    assert RETURNS in prompt and "A-17" in prompt  # the knowledge and the session document both reached the model
    [entry] = json.loads(message["cite_data_json"]).values()
    assert RETURNS in entry["text"]
