from __future__ import annotations

from pydantic import Field
from typing_extensions import TypedDict

from botyard.schemas import Color, Name, RequestModel, Uuid


class TagCreate(RequestModel):
    name: Name
    color: Color = Field(description="#RRGGBB")
    data_source_uuids: list[Uuid] | None = Field(default=None, description="Sources of the same chatbot, in order.")


class TagUpdate(RequestModel):
    name: Name | None = None
    color: Color | None = Field(default=None, description="#RRGGBB")
    data_source_uuids: list[Uuid] | None = Field(default=None, description="Replaces the tag's sources when given.")


class SourceTag(TypedDict):
    uuid: str
    name: str
    color: str
    data_source_uuids: list[str]
    created_at: str
    modified_at: str
