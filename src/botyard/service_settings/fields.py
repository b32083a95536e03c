"""The settings the dashboard changes: their sections and labels, how a value is checked, and the effective
settings of a process (environment, else stored, else default)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from pydantic import SecretStr

from botyard.config import Settings, env_name
from botyard.egress.policy import Allowlist
from botyard.errors import AppError, ErrorCode
from botyard.llm.registry import ModelRegistry


class Section(StrEnum):
    """The Settings page's sections."""

    LLM = "llm"
    FETCHING = "fetching"
    CORS = "cors"


class Source(StrEnum):
    """Where a setting's effective value comes from."""

    ENVIRONMENT = "environment"
    DASHBOARD = "dashboard"
    DEFAULT = "default"


@dataclass(frozen=True)
class Editable:
    name: str
    """The `Settings` field (and, upper-cased with `BOTYARD_`, its environment variable)."""
    section: Section
    label: str
    secret: bool = False

    @property
    def env(self) -> str:
        return env_name(self.name)


FIELDS: tuple[Editable, ...] = (
    Editable("llm_base_url", Section.LLM, "Base URL"),
    Editable("llm_api_key", Section.LLM, "API key", secret=True),
    Editable("llm_models", Section.LLM, "Model map"),
    Editable("llm_default_model", Section.LLM, "Default model"),
    Editable("egress_allowlist", Section.FETCHING, "Allowed hosts"),
    Editable("egress_allowed_ports", Section.FETCHING, "Allowed ports"),
    Editable("cors_origins", Section.CORS, "Allowed origins"),
)
BY_NAME = {field.name: field for field in FIELDS}
LLM_FIELDS = frozenset(field.name for field in FIELDS if field.section is Section.LLM)
MAX_ITEMS = 200
MAX_TEXT = 2000


def locked(base: Settings) -> frozenset[str]:
    """The fields the environment (or the caller of `Settings(...)`) set: the dashboard cannot change those."""
    return frozenset(name for name in BY_NAME if name in base.model_fields_set)


def effective(base: Settings, values: Mapping[str, Any], secrets: Mapping[str, str]) -> Settings:
    """`base` with the stored values of the fields the environment leaves unset (`secrets` already decrypted)."""
    held = locked(base)
    update: dict[str, Any] = {name: value for name, value in values.items() if name in BY_NAME and name not in held}
    update |= {name: SecretStr(value) for name, value in secrets.items() if name in BY_NAME and name not in held}
    return base.model_copy(update=update) if update else base


def invalid(field: str, message: str) -> AppError:
    """A 422 naming the field at fault, as the request validator words one."""
    return AppError(
        ErrorCode.VALIDATION_ERROR, f"{field}: {message}", details=[{"loc": ["body", field], "msg": message}]
    )


def check(name: str, value: Any) -> Any:
    """The value as stored (None: back to the default), or the 422 that names the field. The types were checked by
    the request's schema; these are the rules a type cannot say."""
    if value is None:
        return None
    if name == "llm_base_url":
        return _url(name, value.strip())
    if name in ("llm_api_key", "llm_default_model"):
        text = value.strip()
        if not text or len(text) > MAX_TEXT or any(char.isspace() or not char.isprintable() for char in text):
            raise invalid(name, "must be one word of printable characters (empty: clear it)")
        return text
    if name == "llm_models":
        try:
            ModelRegistry(value)
        except ValueError as error:
            raise invalid(name, str(error)) from error
        return dict(value)
    if name == "egress_allowlist":
        try:
            Allowlist.parse(value)
        except ValueError as error:
            raise invalid(name, str(error)) from error
        return [entry.strip() for entry in value if entry.strip()]
    if name == "egress_allowed_ports":
        if not value or any(not 1 <= port <= 65535 for port in value):
            raise invalid(name, "give at least one port, each a number from 1 to 65535 (null: back to 80, 443)")
        return sorted(set(value))
    if name == "cors_origins":
        return [_origin(name, origin.strip()) for origin in value if origin.strip()]
    raise invalid(name, "is not a setting the dashboard changes")


def _url(name: str, text: str) -> str:
    try:
        parts = urlsplit(text)
        host = parts.hostname
        parts.port  # noqa: B018 - a port out of range raises here
    except ValueError as error:
        raise invalid(name, f"{text!r} is not a URL") from error
    if parts.scheme not in ("http", "https") or not host or len(text) > MAX_TEXT:
        raise invalid(name, "must be an http(s) URL with a host, like http://localhost:11434/v1")
    return text.rstrip("/")


def _origin(name: str, text: str) -> str:
    """An origin as browsers send it: scheme, host and optional port, nothing more (`https://shop.example`)."""
    if text == "*":
        return text
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018
    except ValueError as error:
        raise invalid(name, f"{text!r} is not an origin") from error
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query or parts.fragment:
        raise invalid(name, f"{text!r} is not an origin: give scheme, host and port only (https://shop.example)")
    return text.lower()
