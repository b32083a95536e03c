"""The settings of channels: where the providers' APIs are (part of `Settings`). The defaults are the real APIs;
tests point them at servers on loopback."""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings


class ChannelApiSettings(BaseSettings):
    telegram_api_url: str = Field(
        default="https://api.telegram.org",
        description="Telegram's Bot API; a channel calls `{this}/bot{token}/{method}`, through the egress policy.",
    )

    slack_api_url: str = Field(
        default="https://slack.com/api",
        description="Slack's Web API; a channel calls `{this}/{method}` with its bot token, through the egress policy.",
    )

    @field_validator("telegram_api_url", "slack_api_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")
