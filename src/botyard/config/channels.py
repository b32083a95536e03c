"""The settings of channels (part of `Settings`): where the providers' APIs are (the defaults are the real APIs;
tests point them at servers on loopback), and how long a Telegram poller's lease lasts."""

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

    channel_poll_lease_seconds: float = Field(
        default=30.0,
        ge=3,
        le=600,
        description="How long a process holds a polling Telegram channel unless it renews it (every turn does): "
        "after a crash, another process takes the bot over within this long (and a few seconds more).",
    )

    @field_validator("telegram_api_url", "slack_api_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")
