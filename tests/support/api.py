"""A thin client for the API under test: one account's key, and assertions on the common shapes."""

from __future__ import annotations

import re
from typing import Any

import httpx2 as httpx
from starlette.testclient import TestClient

UUID = re.compile(r"^[0-9a-f]{32}$")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


class Api:
    def __init__(self, client: TestClient, key: str) -> None:
        self.client = client
        self.key = key

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.client.get(f"/api/v1{path}", headers=self.auth, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return self.client.post(f"/api/v1{path}", headers=self.auth, json=json, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.client.delete(f"/api/v1{path}", headers=self.auth, **kwargs)

    def ok(self, response: httpx.Response) -> Any:
        assert response.status_code == 200, (response.status_code, response.text)
        return response.json()

    # Shortcuts for objects most tests need.
    def chatbot(self, name: str = "Support bot", **fields: Any) -> dict[str, Any]:
        body: dict[str, Any] = self.ok(self.post("/chatbot/create", {"name": name, **fields}))
        return body


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The one error shape: status, `error` (a human message) and the stable `code`."""
    assert response.status_code == status, (response.status_code, response.text)
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    assert isinstance(body["error"], str) and body["error"]
    assert set(body) <= {"error", "code", "details"}
    return body


def assert_not_found(response: httpx.Response) -> None:
    assert_error(response, 404, "not_found")


def assert_uuid(value: Any) -> None:
    assert isinstance(value, str) and UUID.match(value), value


def assert_timestamp(value: Any) -> None:
    assert isinstance(value, str) and TIMESTAMP.match(value), value


MISSING = "f" * 32
"""A uuid that names nothing."""
