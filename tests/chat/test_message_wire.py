"""Messages as the official SDK reads them: `ChatMessage(**message)` and `ChatMessageCitation(**entry)` with exactly
its field lists, on the list and the one-message endpoints; the keys that carry real data (labels from the
background agents' tags, pending background jobs); citation links for our own clients; the one-message 404."""

from __future__ import annotations

import json
from typing import Any

from starlette.testclient import TestClient

from tests.support.agents import agent
from tests.support.api import MISSING, Api, assert_not_found
from tests.support.chat import ask, messages, new_session, sse_events
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.sdk import as_sdk
from tests.support.sessions import add_messages

RETURNS = "You can return any item within 30 days of delivery for a full refund."
RETURNS_LINK = "https://help.example.com/returns"
REFUND = {
    "name": "refund request",
    "criteria": "The user asks for a refund or wants their money back",
    "color": "#FF0000",
}


def one(api: Api, uuid: str) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get(f"/message/{uuid}"))
    return found


def test_a_cited_answer_builds_as_the_sdks_message_and_its_link_still_reaches_our_clients(alice: Api) -> None:
    bot = alice.chatbot(show_citations=True)["uuid"]
    qa = {"question": "What is the return policy?", "answer": RETURNS, "reference_source_link": RETURNS_LINK}
    source = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", qa))["uuid"]
    process(alice.client)
    chat = new_session(alice, bot)
    events = sse_events(ask(alice, chat, "What is the return policy?", accept="text/event-stream").text)
    ask(alice, chat, "What is the airspeed velocity of an unladen swallow?")

    listed = messages(alice, chat)
    built = [as_sdk(message) for message in listed]
    assert [one(alice, message.uuid) for message in built] == listed
    cited, uncited = built
    citations = json.loads(cited.cite_data_json)
    assert citations and "[1.1]" in cited.response
    assert citations["1.1"] == {
        "data_source_uuid": source,
        "title": "What is the return policy?",
        "text": citations["1.1"]["text"],
        "file_name": "",
        "type": "qa",
    }
    assert RETURNS in citations["1.1"]["text"]
    # The link is ours to deliver: in the message's meta (the dashboard), and whole in the SSE events (the widget).
    assert json.loads(cited.meta_json)["citation_links"] == {"1.1": RETURNS_LINK}
    assert [data["reference_source_link"] for name, data in events if name == "citation"] == [RETURNS_LINK]
    assert events[-1][1]["citations"]["1.1"]["reference_source_link"] == RETURNS_LINK
    assert uncited.cite_data_json == "{}" and "citation_links" not in json.loads(uncited.meta_json)
    for message in built:
        assert (message.detected_frustrations, message.error_message) == ("", "")
        assert (message.feedback_json, message.ai_context_json, message.session_documents) == ("{}", "{}", [])
        assert (message.labels, message.background_pending_tasks) == ([], 0)


def test_stored_citations_show_only_the_sdks_keys(alice: Api, db: Db) -> None:
    """Rows stored before (or with a key this version does not know) still answer with exactly the five keys."""
    chat = new_session(alice, alice.chatbot()["uuid"])
    stored = {"1.1": {"data_source_uuid": "a" * 32, "title": "Guide", "text": "t", "type": "upload",
                      "reference_source_link": "https://example.com/guide", "score": 0.9},
              "2.1": {"data_source_uuid": "b" * 32, "title": "Page", "text": "u", "file_name": "https://example.com/p",
                      "type": "link"}}  # fmt: skip
    [uuid] = add_messages(db, chat, ("Q", "A [1.1] [2.1]"), cite_data=stored)
    message = as_sdk(one(alice, uuid))
    assert json.loads(message.cite_data_json)["1.1"]["file_name"] == ""
    links = json.loads(message.meta_json)["citation_links"]
    assert links == {"1.1": "https://example.com/guide", "2.1": "https://example.com/p"}


def test_labels_are_the_sessions_tags_and_pending_background_work_is_counted(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    agent(alice, bot, "background", "Tagger", "Tags conversations", tags=[REFUND])
    chat, other = new_session(alice, bot), new_session(alice, bot)
    ask(alice, chat, "When do you open on Saturday?")
    ask(alice, chat, "Can you refund my order?")
    ask(alice, other, "Hello")
    first, second = (as_sdk(message) for message in messages(alice, chat))
    # Each answer queued the background agents' job for itself; neither has run yet.
    assert (first.background_pending_tasks, second.background_pending_tasks) == (1, 1)
    assert as_sdk(one(alice, second.uuid)).background_pending_tasks == 1
    assert (first.labels, second.labels) == ([], [])
    process(alice.client)
    listed = [as_sdk(message) for message in messages(alice, chat)]
    assert [(m.background_pending_tasks, m.labels) for m in listed] == [(0, ["refund request"])] * 2
    assert as_sdk(one(alice, second.uuid)).labels == ["refund request"]
    assert [as_sdk(message).labels for message in messages(alice, other)] == [[]]


def test_one_message_of_another_account_answers_like_a_missing_one(alice: Api, bob: Api, db: Db) -> None:
    [bobs] = add_messages(db, new_session(bob, bob.chatbot()["uuid"]), ("bob's", "secret"))
    assert as_sdk(one(bob, bobs)).query == "bob's"
    answers = [alice.get(f"/message/{uuid}") for uuid in (bobs, MISSING, "not-a-uuid")]
    for answer in answers:
        assert_not_found(answer)
    assert answers[0].json() == answers[1].json() == answers[2].json()
    assert alice.client.get(f"/api/v1/message/{bobs}").status_code == 401


def test_the_one_message_endpoint_is_documented(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/api/v1/message/{uuid}"]["get"]
    assert operation["summary"] and "404" in operation["responses"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["$ref"].endswith("/Message")
