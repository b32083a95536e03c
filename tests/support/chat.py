"""Helpers shared by the chat tests: sessions, streaming, messages, and the app's runtime."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
from starlette.testclient import TestClient

from tests.support.api import Api


def new_session(api: Api, bot: str) -> str:
    uuid: str = api.ok(api.post(f"/chatbot/{bot}/session/create"))["uuid"]
    return uuid


def ask(api: Api, session_uuid: str, query: str, **headers: str) -> httpx.Response:
    return api.client.post(
        f"/api/v1/session/{session_uuid}/message/stream", json={"query": query}, headers={**api.auth, **headers}
    )


def ask_anonymous(client: TestClient, session_uuid: str, query: str) -> httpx.Response:
    return client.post(f"/api/v1/session/{session_uuid}/message/stream", json={"query": query})


def messages(api: Api, session_uuid: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = api.ok(api.get(f"/session/{session_uuid}/messages"))
    return listed


def sse_events(body: str) -> list[tuple[str, Any]]:
    """(event, data) pairs of an SSE body."""
    import json

    found = []
    for block in body.split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((fields["event"], json.loads(fields["data"])))
    return found
