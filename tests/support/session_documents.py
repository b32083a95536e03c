"""Session documents through the API: upload one, send a message that attaches some."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2 as httpx

from tests.support.api import Api

STORY = (Path(__file__).parent.parent / "samples" / "stapler_story.txt").read_text()
"""A 563-token office story (the official SDK's test uses one of 565): Sarah's red stapler vanished."""
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(17)
"""The start of a PNG: its magic bytes are what the upload checks (the model is the one to read the rest)."""


def upload_response(api: Api, name: str, content: bytes, content_type: str = "text/plain") -> httpx.Response:
    return api.client.post(
        "/api/v1/session-document/upload",
        headers=api.auth,
        files={"file": (name, content, content_type)},
        data={"filename": name},
    )


def upload_document(api: Api, name: str = "story.txt", content: bytes | str = STORY, **options: str) -> str:
    data = content.encode() if isinstance(content, str) else content
    uuid: str = api.ok(upload_response(api, name, data, **options))["uuid"]
    return uuid


def send(api: Api, session_uuid: str, query: str, *documents: str, **body: Any) -> httpx.Response:
    """`message/stream` with `session_document_uuids` (when any are given)."""
    payload: dict[str, Any] = {"query": query, **body}
    if documents:
        payload["session_document_uuids"] = list(documents)
    return api.client.post(f"/api/v1/session/{session_uuid}/message/stream", json=payload, headers=api.auth)
