"""A chatbot that hands every question to a person, and a visitor who writes to it: for the inbox's and the
operators' browser tests."""

from __future__ import annotations

import httpx

from tests.support.browser import Service
from tests.support.dashboard import make_chatbot

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
