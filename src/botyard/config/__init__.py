"""The one settings object. Nothing else in the package reads environment variables."""

from __future__ import annotations

import base64
import binascii
import json
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from botyard.client_address import trusted_networks
from botyard.config.channels import ChannelApiSettings
from botyard.config.mail import MailSettings
from botyard.config.people import PeopleSettings


class Settings(PeopleSettings, MailSettings, ChannelApiSettings):
    """Service configuration, read from `BOTYARD_*` environment variables (or given directly in tests). Three
    groups of settings live in modules of their own (`people`, `mail`, `channels`); this class is the one object
    that holds them all."""

    model_config = SettingsConfigDict(env_prefix="BOTYARD_", extra="ignore")

    # Storage
    data_dir: Path = Field(default=Path("data"), description="Where the embedded SQLite file and other state live.")
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL; postgresql://... selects PostgreSQL. Default: SQLite in data_dir.",
    )
    database_echo: bool = False
    database_pool_size: int = Field(
        default=10, ge=1, description="Connections one process keeps open (each answer uses a few, briefly)."
    )
    database_pool_overflow: int = Field(
        default=20, ge=0, description="Extra connections under bursts (keep processes x total under PostgreSQL's max)."
    )
    answer_admission: int = Field(
        default=16,
        ge=1,
        description="Answers per process that prepare and search at once; a burst beyond waits its turn, in order, "
        "instead of every request holding on to the database pool until it times out.",
    )
    no_agent_message: str = Field(
        default="Sorry, this chatbot cannot answer right now.",
        min_length=1,
        description="The reply of a chatbot none of whose agents that answer queries is enabled.",
    )

    # HTTP
    max_body_kb: int = Field(default=1024, ge=1, description="Cap on JSON request bodies.")
    max_upload_mb: int = Field(default=50, ge=1, description="Cap on uploaded files.")
    cors_origins: list[str] = Field(default_factory=list, description="Origins allowed to call the API from a browser.")
    trusted_proxies: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Addresses or CIDRs of reverse proxies whose `X-Forwarded-For` names the client (comma-separated).",
    )

    # Settings changed in the dashboard (botyard.service_settings)
    secret_key: SecretStr | None = Field(
        default=None,
        description="Fernet key that encrypts the secrets stored by the dashboard's Settings page (unset: one is "
        "made once in data_dir/secret.key). Give every process sharing a database the same key.",
    )
    settings_poll_seconds: float = Field(
        default=5.0, gt=0, description="How often a process checks whether another one saved new dashboard settings."
    )

    # Logs
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="text: one line per record (time, level, logger, request id, message); json: one JSON object each.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO", description="Lowest level the service and its server log (other libraries: WARNING and up)."
    )

    # Metrics
    metrics: bool = Field(default=True, description="Serve Prometheus metrics at /metrics (off: /metrics answers 404).")
    metrics_token: SecretStr | None = Field(
        default=None, description="When set, a scrape must send `Authorization: Bearer <token>` (else 401)."
    )
    metrics_dir: Path | None = Field(
        default=None,
        validation_alias="PROMETHEUS_MULTIPROC_DIR",
        description="prometheus-client's multiprocess directory: `botyard serve --workers N` sets it for its workers.",
    )

    # Anonymous traffic (the widget, and keyless messages to public chatbots)
    anonymous_messages_per_minute: int = Field(
        default=60,
        ge=0,
        description="Messages (and, separately, new sessions) one chatbot takes per minute from all callers without "
        "a key together, whatever their addresses; 0: no ceiling.",
    )
    streams_per_address: int = Field(
        default=10, ge=1, description="Event streams one client address may hold open at once in one process."
    )

    # Ingestion
    ingest_max_chars: int = Field(
        default=5_000_000,
        ge=1,
        description="Characters of text kept from one file or page; the rest of a longer document is dropped.",
    )
    ingest_max_chunks: int = Field(
        default=2_000,
        ge=1,
        description="A source that makes more chunks ends `error:too large - over N chunks` without being embedded.",
    )
    """Chosen from the job's 30-minute timeout: with the bundled models, a source embeds about 3 chunks a second on
    2 busy cores (591 chunks of prose, passages included, in 194 s), so 2,000 chunks (about 1.7 MB of prose) take
    about 11 minutes, well inside it; a larger one would run out its timeout and fail after half an hour."""

    # Chat
    chat_ping_seconds: float = Field(
        default=15.0, gt=0, description="Interval of `ping` events in an SSE answer stream while nothing else is sent."
    )

    # Jobs
    jobs_in_process: bool = Field(
        default=True, description="Run the job runner inside `botyard serve` (off when `botyard worker`s run it)."
    )
    job_concurrency: int = Field(default=4, ge=1, description="Jobs one runner works on at once.")
    job_lease_seconds: float = Field(default=30.0, gt=0, description="A runner renews its lease every third of it.")

    # Egress
    egress_allowlist: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host names or addresses/CIDRs reachable even when private, on any port (comma-separated).",
    )
    egress_allowed_ports: Annotated[list[int], NoDecode] = Field(
        default_factory=lambda: [80, 443], description="Ports outbound requests may use (comma-separated)."
    )
    egress_connect_timeout: float = Field(default=10.0, gt=0)
    egress_read_timeout: float = Field(default=30.0, gt=0, description="Longest wait for the next bytes.")
    egress_total_timeout: float = Field(default=60.0, gt=0, description="Wall-clock cap on a fetch and its redirects.")
    egress_max_response_bytes: int = Field(default=20 * 1024 * 1024, ge=1, description="Body cap, after decompression.")

    # Crawls
    crawl_delay: float = Field(
        default=0.05, ge=0, description="Seconds between two request starts to one host (robots.txt may ask more)."
    )
    crawl_max_seconds: float = Field(default=3600.0, gt=0, description="Wall-clock cap on one crawl.")
    crawl_max_mb: int = Field(default=500, ge=1, description="Cap on the bytes one crawl downloads.")

    # Embeddings
    embedder: Literal["multilingual", "minilm", "none", "openai"] = Field(
        default="multilingual",
        description=(
            "multilingual: the bundled offline models, MiniLM for English and USE-m3 for 16 languages; minilm: MiniLM "
            "alone (English only, lighter); none: keyword search only; openai: an embeddings endpoint."
        ),
    )
    embedding_base_url: str | None = Field(
        default=None, description="OpenAI-compatible API root (e.g. http://localhost:11434/v1), for embedder=openai."
    )
    embedding_api_key: SecretStr | None = Field(default=None, description="Sent as a Bearer token; never logged.")
    embedding_model: str | None = Field(default=None, description="The endpoint's model name, for embedder=openai.")
    embedding_dimension: int | None = Field(
        default=None, ge=1, description="Expected vector size from the endpoint (checked; learnt if unset)."
    )
    embedding_timeout: float = Field(default=60.0, gt=0, description="Seconds per embeddings request.")

    # Retrieval
    retrieval_cache_chunks: int = Field(
        default=500_000,
        ge=1,
        description="Chunks the per-chatbot search indexes of one process may hold (least recently used out).",
    )
    index_snapshots: bool = Field(
        default=True,
        description="Save large search indexes under data_dir/indexes: a restarted process loads them, not builds.",
    )
    search: Literal["embedded", "postgres"] = Field(
        default="embedded",
        description=(
            "embedded: each process keeps an index per chatbot in memory (fast, needs no server); postgres: the "
            "database searches (pgvector, PostgreSQL only): API processes hold no index (docs/search.md)."
        ),
    )
    search_read_url: str | None = Field(
        default=None,
        description="A read replica's URL that searches may use (search=postgres): a chatbot whose rows the replica "
        "has not caught up on is searched on the primary.",
    )

    # LLM
    llm_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible API root (e.g. http://localhost:11434/v1). Unset: the offline answerer.",
    )
    llm_api_key: SecretStr | None = Field(default=None, description="Sent as a Bearer token; never logged.")
    llm_models: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict,
        description='Catalogue name to provider model: JSON {"gpt-4o-mini-4k": "llama3.1:8b"} or "name=model,..."',
    )
    llm_default_model: str | None = Field(
        default=None, description="Provider model for catalogue names not in llm_models (unset: the name's base)."
    )
    llm_idle_timeout: float = Field(default=30.0, gt=0, description="Longest wait for the next streamed chunk.")
    llm_total_timeout: float = Field(default=120.0, gt=0, description="Wall-clock cap on one completion.")
    llm_max_connections: int = Field(default=1000, ge=1, description="Concurrent connections to the LLM server.")
    tool_call_timeout: float = Field(default=10.0, gt=0, description="Wall-clock cap on one tool function call.")

    @field_validator("egress_allowlist", "egress_allowed_ports", "trusted_proxies", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        # Environment variables carry "a, b" rather than JSON lists.
        return [part.strip() for part in value.split(",") if part.strip()] if isinstance(value, str) else value

    @field_validator("secret_key")
    @classmethod
    def _fernet_key(cls, value: SecretStr | None) -> SecretStr | None:
        # A key that cannot encrypt must stop the start, not the first save of a secret.
        if value is not None:
            try:
                raw = base64.urlsafe_b64decode(value.get_secret_value().encode())
            except (ValueError, binascii.Error) as error:
                raise ValueError("not a Fernet key: 32 bytes in URL-safe base64 (see docs/configuration.md)") from error
            if len(raw) != 32:
                raise ValueError("not a Fernet key: 32 bytes in URL-safe base64 (see docs/configuration.md)")
        return value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        trusted_networks(value)  # a typo must stop the start, not silently trust nobody (or everybody)
        return value

    @field_validator("llm_models", mode="before")
    @classmethod
    def _model_map(cls, value: object) -> object:
        # A JSON object, or the shell-friendlier "name=model,name=model".
        if not isinstance(value, str):
            return value
        if value.lstrip().startswith("{"):
            return json.loads(value)
        pairs = [part.split("=", 1) for part in value.split(",") if part.strip()]
        if any(len(pair) != 2 for pair in pairs):
            raise ValueError("expected a JSON object or name=model pairs separated by commas")
        return {name.strip(): model.strip() for name, model in pairs}

    @cached_property
    def resolved_database_url(self) -> str:
        """The async SQLAlchemy URL: the configured one with its async driver, or the embedded SQLite file."""
        if self.database_url is None:
            return f"sqlite+aiosqlite:///{(self.data_dir / 'botyard.sqlite3').resolve()}"
        return to_async_url(self.database_url)

    @property
    def is_sqlite(self) -> bool:
        return self.resolved_database_url.startswith("sqlite")


def env_name(field: str) -> str:
    """The environment variable that sets the `Settings` field (`egress_allowlist` -> `BOTYARD_EGRESS_ALLOWLIST`): how
    a message names the setting that would change what it reports."""
    if field not in Settings.model_fields:
        raise KeyError(f"no setting {field!r}")
    return f"{Settings.model_config.get('env_prefix', '')}{field}".upper()


def setting_name(field: str, label: str) -> str:
    """How a message names a setting that the dashboard's Settings page changes too, where an operator looks for it:
    `Allowed hosts (dashboard Settings, or BOTYARD_EGRESS_ALLOWLIST)`."""
    return f"{label} (dashboard Settings, or {env_name(field)})"


def to_async_url(url: str) -> str:
    """Give a plain database URL the async driver the service uses (asyncpg, aiosqlite)."""
    for plain, driver in (
        ("postgresql://", "postgresql+asyncpg://"),
        ("postgres://", "postgresql+asyncpg://"),
        ("sqlite://", "sqlite+aiosqlite://"),
    ):
        if url.startswith(plain):
            return driver + url[len(plain) :]
    return url
