from __future__ import annotations

from botyard.config import Settings
from botyard.egress import EgressClient
from botyard.identity.sso.flow import PATH
from botyard.identity.sso.provider import Client, Provider


def provider_of(settings: Settings, egress: EgressClient) -> Provider | None:
    """The configured provider (its requests through `egress`), or None when single sign-on is off."""
    if not (settings.oidc_discovery_url and settings.oidc_client_id and settings.oidc_client_secret):
        return None
    client = Client(
        discovery_url=settings.oidc_discovery_url,
        client_id=settings.oidc_client_id,
        client_secret=settings.oidc_client_secret.get_secret_value(),
        redirect_uri=f"{settings.public_url}{PATH}/callback",
    )
    return Provider(client, egress)
