"""Tool function request bodies and response shape."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, StringConstraints, model_validator
from typing_extensions import TypedDict

from botyard.agents.fields import Flag, Lenient

Method = Literal["GET", "POST", "PUT", "DELETE", "PATCH"]
JsonType = Literal["string", "number", "integer", "boolean", "array", "object"]
MAX_URL_LENGTH = 2048


def _upper(value: object) -> object:
    return value.upper() if isinstance(value, str) else value


def _http_url(value: str) -> str:
    """An absolute http(s) URL with a host, kept as given (only surrounding whitespace is dropped)."""
    value = value.strip()
    try:
        parts = urlsplit(value)
        _ = parts.port  # an invalid port raises here
    except ValueError as exc:
        raise ValueError("must be a valid http or https URL") from exc
    if any(char.isspace() for char in value) or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an absolute http or https URL")
    return value


def _header_value(value: str) -> str:
    """No control characters (a line break would let a value smuggle in a header of its own); tabs are allowed."""
    if any((ord(char) < 0x20 and char != "\t") or ord(char) == 0x7F for char in value):
        raise ValueError("header values must not contain line breaks or other control characters")
    return value


FunctionName = Annotated[str, StringConstraints(pattern=r"^[a-zA-Z0-9_-]{1,64}$")]
Description = Annotated[str, StringConstraints(max_length=1023)]
ExternalUrl = Annotated[str, StringConstraints(max_length=MAX_URL_LENGTH), AfterValidator(_http_url)]
HttpMethod = Annotated[Method, BeforeValidator(_upper)]
HeaderName = Annotated[str, StringConstraints(pattern=r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$")]
HeaderValue = Annotated[str, StringConstraints(max_length=8192), AfterValidator(_header_value)]
PropertyName = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class ParameterSpec(Lenient):
    """One parameter the model fills. Further JSON-schema keywords (`enum`, `items`...) are kept as given."""

    model_config = ConfigDict(extra="allow")

    type: JsonType
    description: Description = ""


class Parameters(Lenient):
    """The JSON schema of the call's arguments: an object whose `required` names are all among `properties`."""

    type: Literal["object"] = "object"
    properties: dict[PropertyName, ParameterSpec] = Field(default_factory=dict)
    required: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _required_are_properties(self) -> Self:
        unknown = [name for name in self.required if name not in self.properties]
        if unknown:
            raise ValueError(f"required names not in properties: {', '.join(unknown)}")
        self.required = list(dict.fromkeys(self.required))
        return self


class FunctionMeta(Lenient):
    """Free-form settings; `allow_gpt_trainer_properties` is the one the hosted service's SDK sends."""

    model_config = ConfigDict(extra="allow")

    allow_gpt_trainer_properties: Flag = False


class ToolFunctionUpdate(Lenient):
    """A partial update: fields left out keep their value; `parameters`, `headers` and `meta` replace the stored
    objects when given."""

    name: FunctionName | None = Field(default=None, description="^[a-zA-Z0-9_-]{1,64}$, unique in the agent.")
    description: Description | None = Field(default=None, description="Under 1024 characters.")
    parameters: Parameters | None = None
    headers: dict[HeaderName, HeaderValue] | None = Field(
        default=None,
        description="Sent with every call. Replies show each value masked; sent back so, it keeps the stored value.",
    )
    enabled: Flag | None = Field(default=None, description="true/false or 0/1.")
    external_url: ExternalUrl | None = Field(default=None, description="An absolute http or https URL.")
    method: HttpMethod | None = Field(default=None, description="GET, POST, PUT, DELETE or PATCH.")
    meta: FunctionMeta | None = None


class ToolFunctionCreate(ToolFunctionUpdate):
    name: FunctionName = Field(description="^[a-zA-Z0-9_-]{1,64}$, unique in the agent.")
    external_url: ExternalUrl = Field(description="An absolute http or https URL.")


class ToolFunction(TypedDict):
    uuid: str
    name: str
    description: str
    enabled: int
    external_url: str
    method: str
    headers: dict[str, str]
    meta: dict[str, Any]
    parameters: dict[str, Any]
    created_at: str
    modified_at: str
