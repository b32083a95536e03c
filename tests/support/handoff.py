"""A chatbot that hands every question to a person, and a visitor who writes to it: for the inbox's, the office
hours' and the operators' tests."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.support.agents import PERSON, agent, disable_default
from tests.support.api import Api
from tests.support.browser import Service
from tests.support.dashboard import make_chatbot
from tests.support.widget import open_bot

ASKING = "I want to talk to a human about my invoice"


def hand_off_bot(server: Service, name: str) -> str:
    """A chatbot whose only enabled agent is the human hand-off: every question asks for a person."""
    bot = make_chatbot(server, name, with_qa=False)
    agent = {"name": "Hand-off", "type": "human-escalation", "description": "Talk to a real person"}
    hand_off = server.api("POST", f"/chatbot/{bot}/agent/create", agent)
    server.api("POST", f"/agent/{hand_off['uuid']}/update", {"enabled": True})
    for other in server.api("GET", f"/chatbot/{bot}/agents"):
        if other["type"] == "user-facing":
            server.api("POST", f"/agent/{other['uuid']}/update", {"enabled": False})
    return bot


def visitor_says(server: Service, session: str, text: str) -> None:
    response = httpx.post(
        f"{server.base}/api/v1/session/{session}/message/non-stream",
        json={"query": text},
        headers={"Authorization": f"Bearer {server.key}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text


def office_hours(api: Api, bot: str, **fields: Any) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/office-hours", fields))
    return found


def desk(api: Api, **hours: Any) -> str:
    """A public chatbot of `api`'s account whose only agent is the hand-off, with these office hours."""
    bot = open_bot(api)
    disable_default(api, bot)
    agent(api, bot, "human-escalation", "Human hand-off", PERSON)
    office_hours(api, bot, **hours)
    return bot


def answer_text(response: Any) -> str:
    """The text of a streamed answer."""
    return "".join(
        json.loads(line[6:]).get("text", "")
        for line in response.text.splitlines()
        if line.startswith("data: ") and '"text"' in line
    )


def operator_events(api: Api, bot: str, last: str, times: int = 1) -> list[dict[str, Any]]:
    """The chatbot's operator events from the start, up to the `times`-th of type `last`."""
    found: list[dict[str, Any]] = []
    with api.client.stream("GET", f"/api/v1/chatbot/{bot}/events", params={"after": 0}, headers=api.auth) as body:
        for line in body.iter_lines():
            if line.startswith("data: "):
                found.append(json.loads(line[6:]))
                if sum(event["type"] == last for event in found) == times:
                    break
    return found
