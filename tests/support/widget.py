"""The public widget API as the tests call it: a chatbot it serves, a widget session, a question, a verdict."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2 as httpx
from starlette.testclient import TestClient

from tests.support.api import Api, assert_timestamp

DEVICE = "device-0001"


def open_bot(api: Api, visibility: str = "public", **fields: Any) -> str:
    """A chatbot of `api`'s account that the widget serves (public unless told)."""
    uuid: str = api.chatbot(visibility=visibility, **fields)["uuid"]
    return uuid


def widget_session(client: TestClient, bot: str, device: str = DEVICE, **headers: str) -> str:
    response = client.post(f"/api/v1/widget/{bot}/session", json={"device_id": device}, headers=headers)
    assert response.status_code == 200, response.text
    assert_timestamp(response.json()["created_at"])
    uuid: str = response.json()["session_uuid"]
    return uuid


def widget_ask(client: TestClient, chat: str, query: str, device: str = DEVICE, **headers: str) -> httpx.Response:
    body = {"query": query, "device_id": device}
    headers = {"Accept": "text/event-stream", **headers}
    return client.post(f"/api/v1/widget/session/{chat}/message/stream", json=body, headers=headers)


def give_feedback(
    client: TestClient, chat: str, message: str, body: dict[str, Any], device: str = DEVICE, **headers: str
) -> httpx.Response:
    """The widget user's verdict on the answer `message` of the session `chat`."""
    return client.post(
        f"/api/v1/widget/session/{chat}/message/{message}/feedback",
        json={"device_id": device, **body},
        headers=headers,
    )


@contextmanager
def calling_from(client: TestClient, address: str) -> Iterator[None]:
    """Inside the block, `client`'s requests come from `address`: the TCP peer the service sees (the test client
    has one fixed peer, and the limits on anonymous traffic count by it)."""
    transport = client._transport
    before = transport.client
    transport.client = address, 50000
    try:
        yield
    finally:
        transport.client = before
