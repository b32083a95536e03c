from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, Field, StringConstraints, model_validator
from typing_extensions import TypedDict

from botyard.models.kinds import SourceType
from botyard.schemas import RequestModel

MAX_URL_LENGTH = 2048
TITLE_MAX_LENGTH = 500


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _http_url(value: str) -> str:
    """An absolute http(s) URL with a host, kept as given (only surrounding whitespace is dropped)."""
    value = value.strip()
    if any(char.isspace() for char in value):
        raise ValueError("must be an http or https URL without spaces")
    try:
        parts = urlsplit(value)
        _ = parts.port  # an invalid port raises here
    except ValueError as exc:
        raise ValueError("must be a valid http or https URL") from exc
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an absolute http or https URL")
    return value


def _blank_is_none(value: object) -> object:
    """An empty optional link is "not given" (forms and clients send "" for an empty field)."""
    return None if isinstance(value, str) and not value.strip() else value


NonBlankText = Annotated[str, StringConstraints(max_length=100_000), AfterValidator(_not_blank)]
HttpUrl = Annotated[str, StringConstraints(max_length=MAX_URL_LENGTH), AfterValidator(_http_url)]
ReferenceLink = Annotated[HttpUrl | None, BeforeValidator(_blank_is_none)]
Title = Annotated[str, StringConstraints(min_length=1, max_length=TITLE_MAX_LENGTH, strip_whitespace=True)]


class QaCreate(RequestModel):
    question: NonBlankText
    answer: NonBlankText
    reference_source_link: ReferenceLink = Field(default=None, description="Where the answer comes from.")


class UrlCreate(RequestModel):
    url: HttpUrl = Field(description="An absolute http or https URL.")
    reference_source_link: ReferenceLink = Field(default=None, description="The link cited for this source.")


class SourceUpdate(RequestModel):
    title: Title


class QaUpdate(RequestModel):
    """A new question and/or answer for a Q&A pair (what is not given stays)."""

    question: NonBlankText | None = None
    answer: NonBlankText | None = None

    @model_validator(mode="after")
    def _something(self) -> QaUpdate:
        if self.question is None and self.answer is None:
            raise ValueError("give a question, an answer, or both")
        return self


class SourceUuids(RequestModel):
    """Bulk operations: unknown, malformed or foreign uuids are reported per uuid, not refused as a whole."""

    uuids: list[str]


class DataSource(TypedDict):
    uuid: str
    title: str
    type: SourceType
    status: str
    """A `SourceStatus` (`queued` … `success`), or `error:<reason>` when processing failed."""
    file_name: str
    file_size: int
    tokens: int
    meta_json: str
    created_at: str
    modified_at: str


class SourceChunk(TypedDict):
    position: int
    """0 for the first chunk of the source."""
    heading: str
    """The heading path the chunk sits under ("" for none)."""
    text: str
    tokens: int
    embedded: bool
    """Whether the chunk has its vector (dense search); false while it is being embedded, or without an embedder."""


class SourceChunks(TypedDict):
    uuid: str
    """The data source's uuid."""
    total: int
    """How many chunks the source has (`offset` and `limit` page through them)."""
    offset: int
    limit: int
    chunks: list[SourceChunk]


class Restarted(TypedDict):
    uuid: str
    status: str


class Refused(TypedDict):
    uuid: str
    error: str


ItemResult = Restarted | Refused
