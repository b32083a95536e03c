"""Answering over HTTP (TestClient): the no-knowledge reply, the stored message, SSE, capabilities, answers with
citations from real ingested sources, follow-ups, agent source scoping, and the start-up sweep."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from botyard.answering.turn.sweep import sweep_streaming
from botyard.db.base import utcnow
from botyard.models import Message
from tests.support.agents import set_agent_meta
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.chat import ask, ask_anonymous, messages, new_session, sse_events
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.sessions import MESSAGE_KEYS
from tests.support.sources import ARTICLE
from tests.support.web_site import Page, WebSite

OFF_TOPIC = "What is the airspeed velocity of an unladen swallow?"


# The no-knowledge reply and the stored message


def test_an_off_topic_question_gets_the_no_knowledge_message(alice: Api) -> None:
    chat = new_session(alice, alice.chatbot(show_citations=True)["uuid"])
    response = ask(alice, chat, OFF_TOPIC)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.text == DEFAULT_NO_ANSWER_MESSAGE
    [stored] = messages(alice, chat)
    assert set(stored) == MESSAGE_KEYS
    assert (stored["query"], stored["response"], stored["finish_reason"]) == (OFF_TOPIC, response.text, "stop")
    assert stored["cite_data_json"] == "{}"
    tokens = json.loads(stored["meta_json"])["actual_token_distribution"]
    assert tokens["total_tokens"] == tokens["prompt_tokens"] + tokens["completion_tokens"] > 0
    assert tokens["prompt_tokens"] > 0 and tokens["completion_tokens"] > 0


def test_the_no_knowledge_message_is_configurable_per_agent(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    set_agent_meta(db, bot, no_answer_message="I only know about our shop.\nAsk me about it!")
    chat = new_session(alice, bot)
    assert ask(alice, chat, OFF_TOPIC).text == "I only know about our shop.\nAsk me about it!"


def test_non_stream_answers_exactly_response(alice: Api, client: TestClient) -> None:
    chat = new_session(alice, alice.chatbot()["uuid"])
    response = alice.post(f"/session/{chat}/message/non-stream", {"query": OFF_TOPIC, "stream": False})
    assert alice.ok(response) == {"response": DEFAULT_NO_ANSWER_MESSAGE}
    assert [m["response"] for m in messages(alice, chat)] == [DEFAULT_NO_ANSWER_MESSAGE]


def test_a_query_is_required(alice: Api) -> None:
    chat = new_session(alice, alice.chatbot()["uuid"])
    assert_error(alice.post(f"/session/{chat}/message/stream", {}), 422, "validation_error")
    assert_error(alice.post(f"/session/{chat}/message/stream", {"query": ""}), 422, "validation_error")
    assert messages(alice, chat) == []


def test_sse_events_come_in_order_and_end_after_the_message_is_stored(alice: Api) -> None:
    chat = new_session(alice, alice.chatbot()["uuid"])
    response = ask(alice, chat, OFF_TOPIC, accept="text/event-stream")
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    names = [name for name, _ in events]
    assert names[0] == "start" and names[-1] == "end"
    assert set(names[1:-1]) == {"delta"}
    assert "".join(data["text"] for name, data in events if name == "delta") == DEFAULT_NO_ANSWER_MESSAGE
    start, end = events[0][1], events[-1][1]
    [stored] = messages(alice, chat)
    assert start["message_uuid"] == end["message_uuid"] == stored["uuid"]
    assert start["session_uuid"] == chat
    assert end["finish_reason"] == "stop" and end["citations"] == {}
    assert end["usage"]["total_tokens"] > 0


# Session capability


@pytest.mark.parametrize("visibility", ["public", "hybrid"])
def test_open_chatbots_chat_without_the_owners_key(alice: Api, bob: Api, client: TestClient, visibility: str) -> None:
    chat = new_session(alice, alice.chatbot(visibility=visibility)["uuid"])
    assert ask_anonymous(client, chat, "hello").status_code == 200
    assert ask(bob, chat, "hello").status_code == 200  # any valid key too
    assert len(messages(alice, chat)) == 2
    # The capability is for chatting only: the session's messages stay the owner's.
    assert_not_found(bob.get(f"/session/{chat}/messages"))


def test_a_private_chatbot_needs_the_owners_key(alice: Api, bob: Api, client: TestClient) -> None:
    chat = new_session(alice, alice.chatbot(visibility="private")["uuid"])
    assert_error(ask_anonymous(client, chat, "hello"), 401, "unauthorized")
    assert_not_found(ask(bob, chat, "hello"))
    assert messages(alice, chat) == []
    assert ask(alice, chat, "hello").status_code == 200


def test_unknown_sessions_and_bad_keys(alice: Api, client: TestClient) -> None:
    # Without a key an unknown session answers like a private one: nothing tells which uuids exist.
    assert_error(ask_anonymous(client, "f" * 32, "hello"), 401, "unauthorized")
    assert_not_found(ask(alice, "f" * 32, "hello"))
    chat = new_session(alice, alice.chatbot(visibility="public")["uuid"])
    bad = client.post(
        f"/api/v1/session/{chat}/message/stream", json={"query": "hi"}, headers={"Authorization": "Bearer nope"}
    )
    assert_error(bad, 401, "unauthorized")


def test_cors_is_configurable(settings: Any) -> None:
    from botyard.main import create_app

    app = create_app(settings.model_copy(update={"cors_origins": ["https://shop.example"]}))
    with TestClient(app) as browser:
        preflight = browser.options(
            "/api/v1/session/x/message/stream",
            headers={"Origin": "https://shop.example", "Access-Control-Request-Method": "POST"},
        )
        assert preflight.headers["access-control-allow-origin"] == "https://shop.example"


# The start-up sweep


def test_no_message_stays_streaming_after_a_restart(alice: Api, db: Db) -> None:
    chat = new_session(alice, alice.chatbot()["uuid"])

    async def leftover(session: AsyncSession) -> None:
        meta = {"streaming_owner": "gone-host:1"}
        session.add(Message(session_uuid=chat, query="q", response="half an ans", state="streaming", meta=meta))

    db.run(leftover)

    async def sweep(session: AsyncSession) -> list[Message]:
        await sweep_streaming(session, utcnow().replace(year=utcnow().year + 1))
        return list((await session.execute(select(Message).where(Message.session_uuid == chat))).scalars())

    [message] = db.run(sweep)
    assert message.state == "complete" and message.response == "half an ans"
    assert message.meta["interrupted"] is True and "streaming_owner" not in message.meta
    assert message.meta["actual_token_distribution"]["total_tokens"] > 0


# Answers from real sources


@pytest.fixture
def site() -> Any:
    server = WebSite()
    server.pages["/hours"] = Page(ARTICLE)
    yield server
    server.close()


def knowledgeable_bot(alice: Api, client: TestClient, site: WebSite) -> tuple[str, dict[str, str]]:
    bot = alice.chatbot(show_citations=True)["uuid"]
    qa_body = {"question": "Do you offer gift cards?", "answer": "Yes, gift cards of 10, 25 and 50 euros."}
    sources = {"qa": alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", qa_body))["uuid"]}
    sources["link"] = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/hours")}))["uuid"]
    notes = (
        b"# Returns policy\n\nItems can be returned within thirty days of delivery for a full refund. "
        b"The refund is paid to the original payment method within five working days.\n"
    )
    upload = alice.client.post(
        f"/api/v1/chatbot/{bot}/data-source/upload",
        headers=alice.auth,
        files={"file": ("returns.md", notes)},
        data={"reference_source_link": "https://shop.example/returns"},
    )
    sources["upload"] = alice.ok(upload)["uuid"]
    process(client)
    return bot, sources


def cited(stored: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(stored["cite_data_json"])
    return data


def test_qa_page_and_file_sources_answer_with_citations(alice: Api, client: TestClient, site: WebSite) -> None:
    bot, sources = knowledgeable_bot(alice, client, site)
    chat = new_session(alice, bot)
    cases = [
        ("Do you offer gift cards?", "qa", "gift cards of 10, 25 and 50 euros"),
        ("When is the shop open on Saturdays?", "link", "Saturdays"),
        ("How many days do I have to return an item?", "upload", "thirty days"),
    ]
    for query, kind, expected in cases:
        text = ask(alice, chat, query).text
        assert expected in text, (query, text)
        stored = messages(alice, chat)[-1]
        assert stored["response"] == text
        citations = cited(stored)
        assert citations and all(f"[{marker}]" in text for marker in citations)
        first = next(iter(citations.values()))
        assert first["data_source_uuid"] == sources[kind] and first["type"] == kind
        assert set(first) == {"data_source_uuid", "title", "text", "file_name", "type"}  # the SDK's keys only
        links = json.loads(stored["meta_json"]).get("citation_links", {})
        if kind == "upload":
            assert first["file_name"] == "returns.md"
            assert links[next(iter(citations))] == "https://shop.example/returns"
        if kind == "link":
            assert first["file_name"] == site.url("/hours")
    assert ask(alice, chat, OFF_TOPIC).text == DEFAULT_NO_ANSWER_MESSAGE
    assert messages(alice, chat)[-1]["cite_data_json"] == "{}"


def test_a_citation_shows_the_sources_title_after_a_rename(alice: Api, client: TestClient, site: WebSite) -> None:
    bot, sources = knowledgeable_bot(alice, client, site)
    chat = new_session(alice, bot)
    query = "How many days do I have to return an item?"
    ask(alice, chat, query)
    before = next(iter(cited(messages(alice, chat)[-1]).values()))
    assert before["data_source_uuid"] == sources["upload"] and before["file_name"] == "returns.md"
    alice.ok(alice.post(f"/data-source/{sources['upload']}/update", {"title": "Returns policy 2026"}))
    ask(alice, chat, query)
    after = next(iter(cited(messages(alice, chat)[-1]).values()))
    assert (after["title"], after["file_name"]) == ("Returns policy 2026", "returns.md")
    assert before["title"] != after["title"]


def test_without_show_citations_there_are_no_markers(alice: Api, client: TestClient, site: WebSite) -> None:
    bot, _ = knowledgeable_bot(alice, client, site)
    alice.ok(alice.post(f"/chatbot/{bot}/update", {"show_citations": False}))
    chat = new_session(alice, bot)
    text = ask(alice, chat, "Do you offer gift cards?").text
    assert "gift cards" in text and "[" not in text
    assert messages(alice, chat)[-1]["cite_data_json"] == "{}"


def test_sse_announces_citations_before_the_end(alice: Api, client: TestClient, site: WebSite) -> None:
    bot, sources = knowledgeable_bot(alice, client, site)
    chat = new_session(alice, bot)
    events = sse_events(ask(alice, chat, "Do you offer gift cards?", accept="text/event-stream").text)
    names = [name for name, _ in events]
    assert names.index("citation") < names.index("end")
    citation = next(data for name, data in events if name == "citation")
    assert citation["marker"] == "1.1" and citation["data_source_uuid"] == sources["qa"]
    assert events[-1][1]["citations"] == cited(messages(alice, chat)[-1])


def test_follow_ups_use_the_conversation(alice: Api, client: TestClient, site: WebSite) -> None:
    bot, _ = knowledgeable_bot(alice, client, site)
    chat = new_session(alice, bot)
    ask(alice, chat, "When is the shop in Springfield open?")
    follow_up = ask(alice, chat, "And in December?").text
    assert "eight in the evening" in follow_up, follow_up
    # The same words in a new session have no context to lean on.
    assert "eight in the evening" not in ask(alice, new_session(alice, bot), "And then?").text


def test_an_agent_answers_only_from_its_sources(alice: Api, client: TestClient, site: WebSite) -> None:
    bot, sources = knowledgeable_bot(alice, client, site)
    [agent] = alice.ok(alice.get(f"/chatbot/{bot}/agents"))
    update_body = {"use_all_sources": False, "data_source_uuids": [sources["qa"]]}
    alice.ok(alice.post(f"/agent/{agent['uuid']}/update", update_body))
    chat = new_session(alice, bot)
    assert ask(alice, chat, "How many days do I have to return an item?").text == DEFAULT_NO_ANSWER_MESSAGE
    assert "gift cards" in ask(alice, chat, "Do you offer gift cards?").text
    alice.ok(alice.post(f"/agent/{agent['uuid']}/update", {"use_all_sources": True}))
    assert "thirty days" in ask(alice, chat, "How many days do I have to return an item?").text
