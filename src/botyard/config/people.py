"""The settings of people signing in to the dashboard: sessions, the audit log, single sign-on (part of `Settings`)."""

from __future__ import annotations

from typing import Self
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings

_WELL_KNOWN = "/.well-known/openid-configuration"


class PeopleSettings(BaseSettings):
    session_days: int = Field(
        default=14, ge=1, le=365, description="How long a dashboard sign-in lasts before the person signs in again."
    )
    audit_days: int = Field(
        default=365, ge=1, le=36500, description="How long the audit log keeps an event (older ones are deleted)."
    )
    oidc_discovery_url: str | None = Field(
        default=None,
        description="Single sign-on: the OpenID provider's discovery document (https://.../.well-known/"
        "openid-configuration). Unset: no single sign-on.",
    )
    oidc_client_id: str | None = Field(default=None, description="This service's client id at the provider.")
    oidc_client_secret: SecretStr | None = Field(default=None, description="Its client secret; never logged.")
    oidc_name: str | None = Field(
        default=None, max_length=60, description="The provider's name on the sign-in button ('Sign in with <name>')."
    )

    @model_validator(mode="after")
    def _oidc_whole(self) -> Self:
        # Half a single sign-on set-up, or a URL that is no discovery document, must stop the start.
        secret = self.oidc_client_secret.get_secret_value() if self.oidc_client_secret else None
        given = {"DISCOVERY_URL": self.oidc_discovery_url, "CLIENT_ID": self.oidc_client_id, "CLIENT_SECRET": secret}
        if missing := [f"BOTYARD_OIDC_{name}" for name, value in given.items() if not value and any(given.values())]:
            raise ValueError(f"single sign-on needs {', '.join(missing)} too (or none of the three OIDC settings)")
        url = urlsplit(self.oidc_discovery_url or f"https://x{_WELL_KNOWN}")
        if url.scheme != "https" and not (url.scheme == "http" and url.hostname in ("127.0.0.1", "localhost", "::1")):
            raise ValueError("BOTYARD_OIDC_DISCOVERY_URL must use https (plain http only on this machine's loopback)")
        if not url.path.endswith(_WELL_KNOWN):
            raise ValueError(f"BOTYARD_OIDC_DISCOVERY_URL must be the provider's ...{_WELL_KNOWN} URL")
        return self
