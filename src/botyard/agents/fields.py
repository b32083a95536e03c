"""Field types the agent and tool function bodies share."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, Strict, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

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


MAX_CHOICES = 10
MAX_CHOICE_CHARS = 80
"""Within what every channel shows as a button (Slack's 75-character label falls back to numbered lines)."""


def _choices(value: object) -> list[str]:
    """Up to `MAX_CHOICES` different texts of 1 to `MAX_CHOICE_CHARS` characters, trimmed; refused as a whole, with
    the stable type `choices_invalid`, when one is not."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise PydanticCustomError("choices_invalid", "choices must be a list of strings")
    trimmed = [item.strip() for item in value]
    if len(trimmed) > MAX_CHOICES:
        raise PydanticCustomError(
            "choices_invalid",
            "at most {limit} choices; {count} were given",
            {"limit": MAX_CHOICES, "count": len(value)},
        )
    if any(not item or len(item) > MAX_CHOICE_CHARS for item in trimmed):
        message = "each choice is 1 to {limit} characters long"
        raise PydanticCustomError("choices_invalid", message, {"limit": MAX_CHOICE_CHARS})
    if len(set(trimmed)) != len(trimmed):
        raise PydanticCustomError("choices_invalid", "each choice must differ from the others")
    return trimmed


Choices = Annotated[list[str], BeforeValidator(_choices)]
"""A pre-canned agent's choices: buttons offered with its reply, each pressed as the visitor's next message."""
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
