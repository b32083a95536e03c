"""Schema building blocks shared by every feature."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

MAX_SQL_INTEGER = 2**63 - 1
"""The largest integer SQLite's INTEGER and PostgreSQL's BIGINT hold: the upper bound of every integer a client sends
that reaches a query (an offset), so that a larger one is a 422 and never the driver's overflow."""

Uuid = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
"""A public identifier: 32 lowercase hex characters."""

Name = Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)]
Text = Annotated[str, StringConstraints(max_length=100_000)]
Color = Annotated[str, StringConstraints(pattern=r"^#[0-9A-Fa-f]{6}$")]


class RequestModel(BaseModel):
    """A request body. Unknown keys are ignored (clients send extras such as `stream` or `conversation_id`), and an
    explicit `null` means "not given", as the hosted service's SDKs send every optional argument."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _refuse_nul(cls, data: Any) -> Any:
        """NUL characters cannot be stored in PostgreSQL text; refuse them in any string of the body, as a 422."""
        path = _nul_path(data, ())
        if path is not None:
            # The error names the field (via `ctx`), as field validators do; see errors._validation_details.
            raise PydanticCustomError(
                "nul_character", "strings must not contain NUL characters", {"field": ".".join(path)}
            )
        return data

    def given(self) -> dict[str, Any]:
        """The fields the client actually set to a value."""
        return {name: getattr(self, name) for name in self.model_fields_set if getattr(self, name) is not None}


def _nul_path(value: Any, path: tuple[str, ...]) -> tuple[str, ...] | None:
    """Where in a JSON value a string holds a NUL character, or None."""
    if isinstance(value, str):
        return path if "\x00" in value else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(key, str) and "\x00" in key:
            return (*path, key, "[key]")
        found = _nul_path(item, (*path, str(key)))
        if found is not None:
            return found
    return None


class Success(BaseModel):
    success: bool = True


class UuidList(RequestModel):
    uuids: list[Uuid]
