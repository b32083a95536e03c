"""Answering with an LLM provider over HTTP: the app configured for the fake OpenAI-compatible server on loopback.

The fake server is the only stand-in (the true external seam); the chat endpoints, retrieval, the stored messages
and the provider's HTTP client are the real ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.answering.model.prompt import NO_PASSAGE_NOTE
from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from botyard.chatbots.defaults import KNOWLEDGE_ONLY_RULE
from botyard.identity.accounts.service import issue_key
from tests.support.api import Api
from tests.support.apps import llm_app
from tests.support.chat import ask, messages, new_session, sse_events
from tests.support.database import Db, backend_params
from tests.support.fake_llm import FakeLlm, Reply
from tests.support.jobs import process
from tests.support.sources import upload

GIFT_CARDS = "Yes, gift cards of 10, 25 and 50 euros."
ESSAY = "Write a 5-paragraph essay explaining what machine learning is."


@pytest.fixture(scope="module", params=backend_params())
def llm_client(
    request: pytest.FixtureRequest, llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    with llm_app(request.param, tmp_path_factory.mktemp("botyard-llm"), llm.url, llm_idle_timeout=1.0) as client:
        yield client


@pytest.fixture
def shop(llm_client: TestClient, llm: FakeLlm) -> tuple[Api, str]:
    """An account with a chatbot that knows one Q&A pair; the fake server's script and log start empty."""
    Db(llm_client).wipe()
    key = Db(llm_client).run(lambda session: issue_key(session, "owner@example.com")).key
    api = Api(llm_client, key)
    bot = api.chatbot(show_citations=True)["uuid"]
    api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": "Do you offer gift cards?", "answer": GIFT_CARDS}))
    process(llm_client)
    llm.forget()
    return api, new_session(api, bot)


def stored_meta(api: Api, chat: str) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads(messages(api, chat)[-1]["meta_json"])
    return meta


def test_the_model_writes_the_answer_from_the_retrieved_chunks(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, chat = shop
    llm.script(Reply(tokens=("We sell gift cards", " of 10, 25 and 50 euros", " [1.1]."), usage=True))
    response = ask(api, chat, "Do you offer gift cards?")
    assert response.status_code == 200
    assert response.text == "We sell gift cards of 10, 25 and 50 euros [1.1]."
    [request] = llm.requests
    assert request.headers["authorization"] == "Bearer sk-test-key"
    prompt = request.messages[-1]["content"]
    assert GIFT_CARDS in prompt and "Do you offer gift cards?" in prompt and "<document" in prompt
    stored = messages(api, chat)[-1]
    assert stored["response"] == response.text and stored["finish_reason"] == "stop"
    citation = json.loads(stored["cite_data_json"])["1.1"]
    assert GIFT_CARDS in citation["text"] and citation["type"] == "qa"
    tokens = stored_meta(api, chat)["actual_token_distribution"]
    assert tokens["total_tokens"] == tokens["prompt_tokens"] + tokens["completion_tokens"] > 0


def test_the_model_judges_what_the_relevance_gate_turns_down(shop: tuple[Api, str], llm: FakeLlm) -> None:
    """With a model, no retrieval score replaces its judgement: a weak match still reaches it, as data, and the
    default General Q&A prompt is what tells it to refuse (COMPAT.md, "The answer and the agent's prompt")."""
    api, chat = shop
    [bot] = [chatbot["uuid"] for chatbot in api.ok(api.get("/chatbots"))]
    question = "Which cards do you take?"
    found = api.ok(api.post(f"/chatbot/{bot}/retrieve", {"query": question, "top_k": 8}))
    assert found["chunks"] and not found["relevant"], "the premise: a hit the gate turns down"
    llm.script(Reply(tokens=(DEFAULT_NO_ANSWER_MESSAGE,)))
    assert ask(api, chat, question).text == DEFAULT_NO_ANSWER_MESSAGE
    [request] = llm.requests
    system, last = request.messages[0], request.messages[-1]["content"]
    assert system["role"] == "system" and KNOWLEDGE_ONLY_RULE in system["content"]
    assert GIFT_CARDS in last and '<document marker="1.1">' in last and last.endswith(f"Question: {question}")
    assert json.loads(messages(api, chat)[-1]["cite_data_json"]) == {}, "the model cited nothing"


def test_the_owners_prompt_governs_a_general_question(shop: tuple[Api, str], llm: FakeLlm) -> None:
    """The official SDK's end-to-end case: prompt "hello world!", one sentence of knowledge, an essay asked for."""
    api, _ = shop
    bot = api.chatbot()["uuid"]
    [general] = api.ok(api.get(f"/chatbot/{bot}/agents"))
    api.ok(api.post(f"/agent/{general['uuid']}/update", {"prompt": "hello world!", "model": "gpt-4o-8k"}))
    pizza = "Yesterday, Alice and Bob talked about their favorite pizza restaurants."
    upload(api, bot, "test.txt", pizza.encode())
    process(api.client)
    chat = new_session(api, bot)
    llm.script(Reply(tokens=("They talked about", " pizza restaurants.")))
    assert "pizza" in ask(api, chat, "What did Alice talk about yesterday?").text
    essay = [f"Paragraph {number} about machine learning." for number in range(1, 6)]
    # The first reply is the follow-up condensed for retrieval (the session has history), the second the answer.
    llm.script(Reply(tokens=(ESSAY,)), Reply(tokens=tuple(f"{paragraph}\n\n" for paragraph in essay)))
    with api.client.stream(
        "POST", f"/api/v1/session/{chat}/message/stream", json={"query": ESSAY}, headers=api.auth
    ) as response:
        lines = [line for line in response.iter_lines() if line.strip()]
    assert lines == essay
    request = llm.requests[-1]
    assert request.messages[0]["role"] == "system"
    system = request.messages[0]["content"]
    assert system.startswith("hello world!") and "Answer only from the reference documents" not in system
    last = request.messages[-1]["content"]
    assert last.endswith(f"Question: {ESSAY}") and (pizza in last or NO_PASSAGE_NOTE in last)


def test_with_no_knowledge_the_model_is_told_no_passage_matched(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, _ = shop
    bot = api.chatbot()["uuid"]  # no source at all
    chat = new_session(api, bot)
    llm.script(Reply(tokens=(DEFAULT_NO_ANSWER_MESSAGE,)))
    assert ask(api, chat, "Do you offer gift cards?").text == DEFAULT_NO_ANSWER_MESSAGE
    [request] = llm.requests
    last = request.messages[-1]["content"]
    assert last == f"{NO_PASSAGE_NOTE}\n\nQuestion: Do you offer gift cards?"
    assert "<document" not in last and KNOWLEDGE_ONLY_RULE in request.messages[0]["content"]


def test_length_is_the_finish_reason_on_the_wire_and_in_the_message(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, chat = shop
    llm.script(Reply(tokens=("Gift cards", " exist"), finish_reason="length"))
    events = sse_events(ask(api, chat, "Do you offer gift cards?", accept="text/event-stream").text)
    assert events[0][0] == "start" and events[-1][0] == "end"
    assert events[-1][1]["finish_reason"] == "length"
    assert "".join(data["text"] for name, data in events if name == "delta") == "Gift cards exist"
    assert messages(api, chat)[-1]["finish_reason"] == "length"


def test_a_server_error_before_the_first_byte_is_retried_once(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, chat = shop
    llm.script(Reply(status=500), Reply(tokens=("Yes", " [1.1].")))
    assert ask(api, chat, "Do you offer gift cards?").text == "Yes [1.1]."
    assert len(llm.requests) == 2
    assert "error" not in stored_meta(api, chat)


def test_a_failed_provider_gives_the_message_its_error_message(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, chat = shop
    failing = Reply(status=503, error_body='{"error": {"message": "the model is overloaded"}}')
    llm.script(failing, failing)  # the retry fails too
    ask(api, chat, "Do you offer gift cards?")
    llm.script(Reply(tokens=("Yes [1.1].",)))
    ask(api, chat, "Do you offer gift cards?")
    failed, answered = messages(api, chat)
    assert failed["error_message"] and failed["error_message"] == json.loads(failed["meta_json"])["error"]
    assert "503" in failed["error_message"] or "overloaded" in failed["error_message"]
    assert answered["error_message"] == ""
    assert api.ok(api.get(f"/message/{failed['uuid']}"))["error_message"] == failed["error_message"]


def test_a_stall_after_some_tokens_ends_cleanly_and_keeps_the_text(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, chat = shop
    llm.script(Reply.words(10, stall_after=3))
    events = sse_events(ask(api, chat, "Do you offer gift cards?", accept="text/event-stream").text)
    names = [name for name, _ in events]
    assert names[-2:] == ["error", "end"]
    text = "".join(data["text"] for name, data in events if name == "delta")
    assert text == "w0 w1 w2 "
    stored = messages(api, chat)[-1]
    assert stored["response"] == text
    assert "error" in stored_meta(api, chat)


def test_a_malformed_chunk_ends_the_answer_with_the_error_stored(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, chat = shop
    llm.script(Reply.words(6, malformed_after=2))
    assert ask(api, chat, "Do you offer gift cards?").text == "w0 w1 "
    assert "malformed" in stored_meta(api, chat)["error"]


def test_the_model_condenses_a_follow_up_before_retrieval(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, chat = shop
    llm.script(Reply(tokens=("Yes [1.1].",)))
    ask(api, chat, "Do you offer gift cards?")
    # "Which amounts?" alone retrieves nothing; the condensed question finds the gift cards again.
    llm.script(Reply(tokens=("What gift cards", " do you offer?")), Reply(tokens=("10, 25 and 50 [1.1].",)))
    assert ask(api, chat, "Which amounts?").text == "10, 25 and 50 [1.1]."
    condense, answer = llm.requests[-2:]
    assert "Which amounts?" in condense.messages[-1]["content"]
    assert "Do you offer gift cards?" in condense.messages[-1]["content"]
    assert GIFT_CARDS in answer.messages[-1]["content"]
    assert json.loads(messages(api, chat)[-1]["cite_data_json"])["1.1"]["type"] == "qa"


def test_the_agent_prompt_gets_the_sessions_variables(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, _ = shop
    [bot] = [chatbot["uuid"] for chatbot in api.ok(api.get("/chatbots"))]
    [general] = api.ok(api.get(f"/chatbot/{bot}/agents"))
    variables = [
        {"name": "customer_name", "type": "string"},
        {"name": "company", "type": "string", "default_value": {"content": "ACME", "static": 1}},
    ]
    prompt = "You assist {{customer_name}} from {{ company }}."
    api.ok(api.post(f"/agent/{general['uuid']}/update", {"prompt": prompt, "variables": variables}))
    seed = {"customer_name": "Ann", "company": "Other Ltd"}
    chat = api.ok(api.post(f"/chatbot/{bot}/session/create", {"initial_variables": seed}))["uuid"]
    assert ask(api, chat, "Do you offer gift cards?").status_code == 200
    system = llm.requests[-1].messages[0]["content"]
    assert "You assist Ann from ACME." in system  # the static value wins over the session's


def json_reply(value: Any) -> Reply:
    return Reply(tokens=(json.dumps(value),))


def add_agent(api: Api, bot: str, type_: str, name: str, description: str, **fields: Any) -> str:
    body = {"name": name, "type": type_, "description": description, **fields}
    uuid: str = api.ok(api.post(f"/chatbot/{bot}/agent/create", body))["uuid"]
    api.ok(api.post(f"/agent/{uuid}/update", {"enabled": True}))
    return uuid


def test_with_a_provider_the_model_rates_the_agents(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, chat = shop
    [bot] = [chatbot["uuid"] for chatbot in api.ok(api.get("/chatbots"))]
    add_agent(api, bot, "user-facing", "Billing", "Invoices and payments", use_all_sources=True)
    add_agent(api, bot, "user-facing", "Shipping", "Parcels", use_all_sources=True, prompt="SECRET-PROMPT-TEXT")
    llm.script(json_reply({"1": 1, "2": 3, "3": 9}))
    assert ask(api, chat, "Do you offer gift cards?").status_code == 200
    meta = stored_meta(api, chat)
    assert (meta["agent_name"], meta["routing"]["reason"]) == ("Shipping", "rated")
    rating = llm.requests[0].messages[-1]["content"]
    assert "Invoices and payments" in rating and "<message>Do you offer gift cards?</message>" in rating
    assert "SECRET-PROMPT-TEXT" not in rating  # names and descriptions only, never the prompts
    assert rating.count("(user-facing, default)") == 1  # the model is told which agent to fall back on

    llm.forget()
    llm.script(Reply(tokens=("I think Billing fits best",)))  # not JSON: the offline scorer decides instead
    assert ask(api, chat, "Do you offer gift cards?").status_code == 200
    assert stored_meta(api, chat)["routing"]["reason"] == "scored"


def test_with_a_provider_the_model_judges_tags_and_fills_variables(shop: tuple[Api, str], llm: FakeLlm) -> None:
    api, chat = shop
    [bot] = [chatbot["uuid"] for chatbot in api.ok(api.get("/chatbots"))]
    tags = [{"name": "angry customer", "criteria": "The user is upset", "color": "#000000"}]
    add_agent(api, bot, "background", "Tagger", "Tags", tags=tags)
    [general] = [a for a in api.ok(api.get(f"/chatbot/{bot}/agents")) if a["name"] == "General Q&A"]
    variables = [{"name": "customer_name", "type": "string", "description": "The customer's name"}]
    api.ok(api.post(f"/agent/{general['uuid']}/update", {"variables": variables}))
    llm.script(json_reply({"customer_name": "Ann", "not_declared": "x"}))  # the variables, read before answering
    assert ask(api, chat, "I am Ann and I am fed up. Do you offer gift cards?").status_code == 200
    assert api.ok(api.get(f"/session/{chat}"))["meta"]["variables"] == {"customer_name": "Ann"}
    llm.forget()
    llm.script(json_reply(["angry customer", "a tag nobody defined"]))
    process(api.client)
    assert api.ok(api.get(f"/session/{chat}"))["meta"]["tags"] == ["angry customer"]
    assert "<conversation>" in llm.requests[0].messages[-1]["content"]


def test_a_models_confidence_follows_the_evidence_and_its_citations(shop: tuple[Api, str], llm: FakeLlm) -> None:
    """A weak match reaches the model with a rule that the passages may not cover the question; its answer is stored
    `low` when it cites nothing, `high` when it cites a passage or the decision found the evidence strong, and `none`
    when it says the no-answer sentence. The SSE `end` event carries the same."""
    api, _ = shop
    [bot] = [chatbot["uuid"] for chatbot in api.ok(api.get("/chatbots"))]
    weak = "Which cards do you take?"  # a hit the relevance decision turns down (the test above)

    def confidence(question: str, reply: str) -> str:
        chat = new_session(api, bot)  # no history: the model is not asked to condense the question first
        llm.script(Reply(tokens=(reply,)))
        events = sse_events(ask(api, chat, question, Accept="text/event-stream").text)
        stored = stored_meta(api, chat)["confidence"]
        assert events[-1][1]["confidence"] == stored
        return str(stored)

    assert confidence(weak, "We take all major cards.") == "low"
    system = llm.requests[-1].messages[0]["content"]
    assert "may not cover this question" in system and "language the user wrote" in system
    assert confidence(weak, "Gift cards of 10, 25 and 50 euros [1.1].") == "high"
    assert confidence(weak, DEFAULT_NO_ANSWER_MESSAGE) == "none"
    assert confidence("Do you offer gift cards?", "Yes, we sell gift cards.") == "high"  # strong evidence
    assert "may not cover this question" not in llm.requests[-1].messages[0]["content"]
