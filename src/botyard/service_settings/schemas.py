from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from botyard.service_settings.fields import MAX_ITEMS, MAX_TEXT, Section, Source

Text = Annotated[str, Field(max_length=MAX_TEXT)]


class SettingsChange(BaseModel):
    """The settings to change, by their `Settings` names; a field left out stays as it is, `null` (or, for the API
    key, an empty text) goes back to the default. All or nothing: one bad field changes none."""

    model_config = ConfigDict(extra="forbid")

    llm_base_url: Text | None = None
    llm_api_key: Text | None = None
    llm_models: Annotated[dict[Text, Text], Field(max_length=MAX_ITEMS)] | None = None
    llm_default_model: Text | None = None
    egress_allowlist: Annotated[list[Text], Field(max_length=MAX_ITEMS)] | None = None
    egress_allowed_ports: Annotated[list[Annotated[int, Field(ge=1, le=65535)]], Field(max_length=MAX_ITEMS)] | None = (
        None
    )
    cors_origins: Annotated[list[Text], Field(max_length=MAX_ITEMS)] | None = None


class SettingView(BaseModel):
    name: str = Field(description="The `Settings` field, the key to change it with.")
    env: str = Field(description="The environment variable that sets it (and then wins).")
    section: Section
    label: str
    source: Source = Field(description="Where the value in use comes from.")
    locked: bool = Field(description="Set by the environment: change it there, not here.")
    secret: bool
    value: object = Field(default=None, description="The value in use; always null for a secret.")
    is_set: bool = Field(description="Whether a value is in use (for a secret: whether one is).")
    last4: str | None = Field(default=None, description="A secret's last four characters, to recognise it.")
    unreadable: bool = Field(
        default=False, description="A stored secret this instance's key cannot open: enter it again."
    )


class SettingsView(BaseModel):
    version: int = Field(description="Raised by every change.")
    updated_at: str | None
    settings: list[SettingView]


class ConnectionTest(BaseModel):
    """Test the language model with the saved settings, or with these values first (not saved)."""

    model_config = ConfigDict(extra="forbid")

    llm_base_url: Text | None = None
    llm_api_key: Text | None = Field(
        default=None, description="Left out: the saved key (then only with the base URL it was saved with)."
    )
    llm_models: Annotated[dict[Text, Text], Field(max_length=MAX_ITEMS)] | None = None
    llm_default_model: Text | None = None
    model: Text = Field(default="gpt-4o-mini-4k", description="The catalogue name to ask, as an agent would.")


class ConnectionResult(BaseModel):
    ok: bool
    model: str = Field(description="The provider's model that was asked.")
    host: str = Field(description="Host and port of the base URL (no path, no credentials).")
    reply: str | None = Field(description="The model's reply, when it answered.")
    error: str | None = Field(description="What went wrong and which setting to check, when it did not.")
