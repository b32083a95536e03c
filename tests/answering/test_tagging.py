"""Background agents over HTTP: after an answer, a job assigns the session the tags whose criteria the conversation
matches; a tag is assigned once and kept; sessions are filterable by tag. Real app, real job runner, real bundled
model, both databases."""

from __future__ import annotations

import json

from tests.support.agents import agent
from tests.support.api import Api
from tests.support.chat import ask, new_session
from tests.support.jobs import process

REFUND = {"name": "refund request", "criteria": "The user asks for a refund or wants their money back",
          "color": "#FF0000"}  # fmt: skip
ANGRY = {"name": "angry customer", "criteria": "The user is upset, angry or complains about the service",
         "color": "#000000"}  # fmt: skip


def tags(api: Api, chat: str) -> list[str]:
    found: list[str] = api.ok(api.get(f"/session/{chat}"))["meta"]["tags"]
    return found


def tagged(api: Api, bot: str, *names: str) -> list[str]:
    return [s["uuid"] for s in api.ok(api.get(f"/chatbot/{bot}/sessions", params={"tag": list(names)}))]


def test_matching_tags_are_assigned_after_the_answer_and_kept(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    agent(alice, bot, "background", "Tagger", "Tags conversations", tags=[REFUND, ANGRY])
    chat, calm = new_session(alice, bot), new_session(alice, bot)
    assert ask(alice, chat, "Can you refund my order?").status_code == 200
    assert tags(alice, chat) == []  # the reply did not wait for the tagging
    ask(alice, calm, "When do you open on Saturday?")
    process(alice.client)
    assert tags(alice, chat) == ["refund request"] and tags(alice, calm) == []

    ask(alice, chat, "This is the worst service ever, I am furious")
    ask(alice, chat, "Can I get my money back?")
    process(alice.client)
    assert tags(alice, chat) == ["refund request", "angry customer"]  # each once, in the order they were assigned
    ask(alice, chat, "Where is my parcel?")
    process(alice.client)
    assert tags(alice, chat) == ["refund request", "angry customer"]  # kept

    assert tagged(alice, bot, "refund request") == [chat]
    assert tagged(alice, bot, "refund request", "angry customer") == [chat]
    assert tagged(alice, bot, "no such tag") == []


def test_the_tags_assigned_event(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    agent(alice, bot, "background", "Tagger", "Tags conversations", tags=[REFUND])
    chat = new_session(alice, bot)
    ask(alice, chat, "Can you refund my order?")
    process(alice.client)
    with alice.client.stream("GET", f"/api/v1/chatbot/{bot}/events", params={"after": 0}, headers=alice.auth) as body:
        for line in body.iter_lines():
            if line.startswith("data: "):
                event = json.loads(line[6:])
                break
    assert (event["type"], event["session_uuid"], event["tags"]) == ("tags_assigned", chat, ["refund request"])


def test_a_disabled_background_agent_assigns_nothing(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    uuid = agent(alice, bot, "background", "Tagger", "Tags conversations", tags=[REFUND])
    alice.ok(alice.post(f"/agent/{uuid}/update", {"enabled": False}))
    chat = new_session(alice, bot)
    ask(alice, chat, "Can you refund my order?")
    process(alice.client)
    assert tags(alice, chat) == []
