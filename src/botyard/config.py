"""The one settings object. Nothing else in the package reads environment variables."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    """Service configuration, read from `BOTYARD_*` environment variables (or given directly in tests)."""

    model_config = SettingsConfigDict(env_prefix="BOTYARD_", extra="ignore")

    # Storage
    data_dir: Path = Field(default=Path("data"), description="Where the embedded SQLite file and other state live.")
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL; postgresql://... selects PostgreSQL. Default: SQLite in data_dir.",
    )
    database_echo: bool = False

    # HTTP
    max_body_kb: int = Field(default=1024, ge=1, description="Cap on JSON request bodies.")
    max_upload_mb: int = Field(default=50, ge=1, description="Cap on uploaded files.")
    cors_origins: list[str] = Field(default_factory=list, description="Origins allowed to call the API from a browser.")

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

    @field_validator("egress_allowlist", "egress_allowed_ports", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        # Environment variables carry "a, b" rather than JSON lists.
        return [part.strip() for part in value.split(",") if part.strip()] if isinstance(value, str) else value

    @cached_property
    def resolved_database_url(self) -> str:
        """The async SQLAlchemy URL: the configured one with its async driver, or the embedded SQLite file."""
        if self.database_url is None:
            return f"sqlite+aiosqlite:///{(self.data_dir / 'botyard.sqlite3').resolve()}"
        return to_async_url(self.database_url)

    @property
    def is_sqlite(self) -> bool:
        return self.resolved_database_url.startswith("sqlite")


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
