"""Schema building blocks shared by every feature."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, StringConstraints

Uuid = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
"""A public identifier: 32 lowercase hex characters."""

Name = Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)]
Text = Annotated[str, StringConstraints(max_length=100_000)]
Color = Annotated[str, StringConstraints(pattern=r"^#[0-9A-Fa-f]{6}$")]


class RequestModel(BaseModel):
    """A request body. Unknown keys are ignored (clients send extras such as `stream` or `conversation_id`), and an
    explicit `null` means "not given", as the hosted service's SDKs send every optional argument."""

    model_config = ConfigDict(extra="ignore")

    def given(self) -> dict[str, Any]:
        """The fields the client actually set to a value."""
        return {name: getattr(self, name) for name in self.model_fields_set if getattr(self, name) is not None}


class Success(BaseModel):
    success: bool = True


class UuidList(RequestModel):
    uuids: list[Uuid]
