from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, StringConstraints, model_validator
from typing_extensions import TypedDict

from botyard.i18n import Language, primary_subtag
from botyard.models.kinds import Visibility
from botyard.retrieval.relevance import Strictness
from botyard.schemas import Name, RequestModel

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


LanguageCode = Annotated[
    Language, BeforeValidator(lambda value: primary_subtag(value) if isinstance(value, str) else value)
]

_STRICTNESS = (
    "How much evidence a question needs in the knowledge before the offline answerer answers it: `loose`, "
    "`balanced` (the default) or `strict`. With a language model, the agent's prompt decides."
)
_LANGUAGE = (
    "The language the chatbot speaks to its users (the no-answer reply, small talk, the widget's own words), as "
    "the primary subtag of a BCP 47 tag (`de`; `de-AT` is read as `de`). `null`: the language most of its "
    "knowledge is written in."
)


class LanguageSource(StrEnum):
    SETTING = "setting"
    KNOWLEDGE = "knowledge"
    DEFAULT = "default"


class AnswerSettings(BaseModel):
    """How the chatbot decides to answer, and in which language. Not part of the hosted chatbot object (its `meta`
    keys are fixed), so a resource of its own."""

    strictness: Strictness = Field(description=_STRICTNESS)
    language: Language | None = Field(description=_LANGUAGE)
    effective_language: Language = Field(
        description="The language the chatbot speaks now: `language` when set, else the one detected in its "
        "knowledge, else `en`. A question clearly written in another language gets the no-answer reply in its own."
    )
    language_source: LanguageSource = Field(
        description="Where `effective_language` comes from: `setting` (`language`), `knowledge` (detected from a "
        "sample of the knowledge's chunks, again whenever the knowledge changes) or `default` (nothing set, "
        "and no language detected in the knowledge)."
    )


class AnswerSettingsUpdate(RequestModel):
    """Any of the answer settings; the others keep their values. Unlike elsewhere, an explicit `"language": null`
    is a value: it returns the chatbot to the language of its knowledge."""

    strictness: Strictness | None = Field(default=None, description=_STRICTNESS)
    language: LanguageCode | None = Field(default=None, description=_LANGUAGE)

    def columns(self) -> dict[str, Any]:
        """The chatbot's columns this update sets."""
        values: dict[str, Any] = {}
        if self.strictness is not None:
            values["answer_strictness"] = self.strictness.value
        if "language" in self.model_fields_set:
            values["language"] = self.language.value if self.language is not None else None
        return values
