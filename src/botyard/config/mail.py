"""The settings of mail: operators hear of waiting visitors and of messages left after hours (part of `Settings`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings


class MailSettings(BaseSettings):
    public_url: str = Field(
        default="http://localhost:8000",
        description="The address people open this service at (scheme, host, port): links in emails start with it.",
    )
    smtp_host: str | None = Field(default=None, description="The mail server's host name. Unset: no mail is sent.")
    smtp_port: int = Field(default=587, ge=1, le=65535, description="587 for STARTTLS, 465 for TLS, 25 for neither.")
    smtp_security: Literal["starttls", "tls", "none"] = Field(
        default="starttls",
        description="starttls: upgrade the connection (port 587); tls: TLS from the start (465); none: plain text "
        "(a relay on the same machine only).",
    )
    smtp_username: str | None = Field(default=None, description="Sign-in name at the mail server (unset: none).")
    smtp_password: SecretStr | None = Field(default=None, description="Its password; never logged.")
    smtp_from: str = Field(
        default="botyard@localhost", description="The sender address (`Botyard <bot@example.com>` works too)."
    )
    smtp_timeout: float = Field(default=15.0, gt=0, description="Seconds the mail server has to answer each step.")

    @field_validator("public_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")
