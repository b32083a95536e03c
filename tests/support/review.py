"""The review queue through the API: listing it, asking in a new session, rating an answer down in the widget."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from tests.support.api import Api
from tests.support.chat import ask, messages, new_session, sse_events
from tests.support.widget import give_feedback, widget_ask, widget_session


def queue(api: Api, bot: str, **params: Any) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get(f"/chatbot/{bot}/review", params=params))
    return found


def asked(api: Api, bot: str, question: str) -> dict[str, Any]:
    """Ask in a new session; the stored answer."""
    session = new_session(api, bot)
    assert ask(api, session, question).status_code == 200
    answer: dict[str, Any] = messages(api, session)[-1]
    return {**answer, "session_uuid": session}


def rated_down(client: TestClient, bot: str, question: str) -> tuple[str, str]:
    """A widget visitor asks and rates the answer down; the session and the answer's uuid."""
    chat = widget_session(client, bot)
    end = sse_events(widget_ask(client, chat, question).text)[-1]
    answer: str = end[1]["message_uuid"]
    assert give_feedback(client, chat, answer, {"rating": "down", "comment": "wrong"}).status_code == 200
    return chat, answer
