"""The official SDK's classes as the tests build them: `Cls(**json)` with exactly its field lists (COMPAT.md), so a
key more or less than the SDK's is a TypeError, as it is for a client."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any


@dataclass
class SdkChatbot:
    uuid: str
    name: str
    created_at: str
    modified_at: str
    meta: dict[str, Any]


@dataclass
class SdkAgent:
    uuid: str
    name: str
    type: str
    description: str
    prompt: str
    enabled: int
    created_at: str
    modified_at: str
    data_source_uuids: list[str]
    meta: dict[str, Any]
    tool_functions: list[dict[str, Any]]


@dataclass
class SdkDataSource:
    uuid: str
    title: str
    type: str
    status: str
    file_name: str
    file_size: int
    tokens: int
    meta_json: str
    created_at: str
    modified_at: str


@dataclass
class SdkSourceTag:
    uuid: str
    name: str
    color: str
    data_source_uuids: list[str]
    created_at: str
    modified_at: str


@dataclass
class SdkSessionSummary:
    uuid: str
    created_at: str
    modified_at: str


@dataclass
class SdkSession(SdkSessionSummary):
    meta: dict[str, Any]


@dataclass
class SdkChatMessage:
    """The official SDK's message: every field required except `ai_context_json`; an unknown key is a TypeError."""

    uuid: str
    query: str
    response: str
    finish_reason: str
    cite_data_json: str
    meta_json: str
    created_at: str
    modified_at: str
    background_pending_tasks: int
    detected_frustrations: str
    error_message: str
    feedback_json: str
    labels: list[str]
    session_documents: list[Any]
    ai_context_json: str = "{}"


@dataclass
class SdkCitation:
    """The official SDK's `ChatMessageCitation`."""

    data_source_uuid: str
    title: str
    text: str
    file_name: str
    type: str


def as_sdk(message: dict[str, Any]) -> SdkChatMessage:
    """The message as the SDK builds it, with every citation built too; checks the JSON strings and the types."""
    built = SdkChatMessage(**message)
    assert isinstance(built.background_pending_tasks, int) and built.background_pending_tasks >= 0
    assert isinstance(built.labels, list) and isinstance(built.session_documents, list)
    for text in (built.meta_json, built.feedback_json, built.ai_context_json):
        assert isinstance(json.loads(text), dict)
    for entry in json.loads(built.cite_data_json).values():
        assert set(entry) == {field.name for field in fields(SdkCitation)}
        SdkCitation(**entry)
    return built
