from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator
from typing_extensions import TypedDict

from botyard.retrieval.relevance import Strictness
from botyard.schemas import Name, RequestModel

Visibility = Literal["private", "public", "hybrid"]
RateLimit = tuple[Annotated[int, Field(ge=1, le=100)], Annotated[int, Field(ge=1, le=360)]]
RateLimitMessage = Annotated[str, StringConstraints(max_length=2000)]


class ChatbotSettings(RequestModel):
    rate_limit: RateLimit | None = Field(default=None, description="[messages, window in seconds]")
    rate_limit_message: RateLimitMessage | None = None
    show_citations: bool | None = None
    visibility: Visibility | None = None

    @model_validator(mode="before")
    @classmethod
    def _flatten_meta(cls, data: Any) -> Any:
        """An older form of the API nests the settings under `meta`; flat keys win over nested ones."""
        if isinstance(data, dict) and isinstance(data.get("meta"), dict):
            return {**data["meta"], **{k: v for k, v in data.items() if k != "meta"}}
        return data


class ChatbotCreate(ChatbotSettings):
    name: Name


class ChatbotUpdate(ChatbotSettings):
    name: Name | None = None


class ChatbotMeta(TypedDict):
    rate_limit: list[int]
    rate_limit_message: str
    show_citations: bool
    visibility: str


class Chatbot(TypedDict):
    uuid: str
    name: str
    created_at: str
    modified_at: str
    meta: ChatbotMeta


class AnswerSettings(RequestModel):
    """How the chatbot decides to answer. Not part of the hosted chatbot object (its `meta` keys are fixed), so a
    resource of its own."""

    strictness: Strictness = Field(
        default=Strictness.BALANCED,
        description="How much evidence a question needs in the knowledge before the offline answerer answers it: "
        "`loose`, `balanced` (the default) or `strict`. With a language model, the agent's prompt decides.",
    )
