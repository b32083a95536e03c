from __future__ import annotations

from typing_extensions import TypedDict


class ApiKeyInfo(TypedDict):
    prefix: str
    created_at: str
    revoked_at: str | None


class ApiKeyCreated(ApiKeyInfo):
    key: str
