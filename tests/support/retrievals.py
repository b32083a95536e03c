"""The owners' retrieve endpoint ("hit testing") as the retrieval tests ask it, and the questions they compare
backends and databases on."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from botyard.identity.accounts.service import issue_key
from tests.support.api import Api

OFF_TOPIC = [
    "Who won the football world cup in 1998?",
    "What is the boiling point of mercury?",
    "Write me a poem about the sea",
]
QUERIES = ["opening hours on Saturday", "money back", "shipping to Europe", "password link expiry", *OFF_TOPIC]
"""Questions on the test knowledge (`knowledge.KNOWLEDGE`) and off it."""


def retrieve(api: Api, bot: str, query: str, **body: Any) -> dict[str, Any]:
    result: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/retrieve", {"query": query, **body}))
    return result


async def issued_key(client: TestClient) -> str:
    """A key of a new account of the app (run on its portal: `client.portal.call(issued_key, client)`)."""
    database = client.app.state.database  # type: ignore[attr-defined]
    async with database.transaction() as session:
        issued = await issue_key(session, "same@example.com")
    return issued.key
