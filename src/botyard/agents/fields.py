"""Field types the agent and tool function bodies share."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, Strict, StringConstraints, model_validator

from botyard.llm import catalogue
from botyard.schemas import RequestModel


def _flag(value: object) -> object:
    """Booleans come as true/false or as the 0/1 the service itself answers with; nothing else."""
    if isinstance(value, bool) or (type(value) is int and value in (0, 1)):
        return bool(value)
    raise ValueError("must be true, false, 0 or 1")


def _catalogue_model(name: str) -> str:
    if catalogue.lookup(name) is None:
        raise ValueError("unknown model; GET /api/v1/agent/models lists the valid names (e.g. gpt-4o-mini-4k)")
    return name


Flag = Annotated[bool, BeforeValidator(_flag)]
"""true/false or 0/1 on input; responses say which form they use."""
Unit = Annotated[float, Strict(), Field(ge=0, le=1)]
# The public docs give bias a 0..1 range, but the hosted service's own responses show a negative bias on
# human-escalation agents, so a client that reads an agent and sends it back must be accepted: -1..1.
Bias = Annotated[float, Strict(), Field(ge=-1, le=1)]
ModelName = Annotated[str, AfterValidator(_catalogue_model)]
ShortText = Annotated[str, StringConstraints(max_length=10_000)]


class Lenient(RequestModel):
    """A body part in which an explicit `null` means "not given", so that the field's default applies."""

    @model_validator(mode="before")
    @classmethod
    def _drop_nulls(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value is not None}
        return data
