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

    twilio_api_url: str = Field(
        default="https://api.twilio.com",
        description="Twilio's REST API; an SMS channel calls `{this}/2010-04-01/Accounts/{sid}/...` with its account "
        "SID and auth token, through the egress policy.",
    )

    graph_api_url: str = Field(
        default="https://graph.facebook.com",
        description="Meta's Graph API (WhatsApp, Messenger, Instagram); a channel calls `{this}/v23.0/...` with its "
        "access token, through the egress policy.",
    )

    channel_poll_lease_seconds: float = Field(
        default=30.0,
        ge=3,
        le=600,
        description="How long a process holds a polling Telegram channel unless it renews it (every turn does): "
        "after a crash, another process takes the bot over within this long (and a few seconds more).",
    )

    channel_mail_poll_seconds: float = Field(
        default=60.0,
        ge=1,
        le=3600,
        description="How often an email channel looks for new mail when its IMAP server does not offer IDLE (with "
        "IDLE, mail is read as it arrives).",
    )

    channel_mail_smtp_port: int | None = Field(
        default=None,
        ge=0,
        le=65535,
        description="The built-in SMTP receiver's port (unset: off): it takes mail for the email channels' "
        "addresses, as an MX or your mail server's relay would deliver it, and refuses every other recipient.",
    )

    channel_mail_smtp_host: str = Field(
        default="127.0.0.1", description="Where the built-in SMTP receiver listens (0.0.0.0: every interface)."
    )

    @field_validator("telegram_api_url", "slack_api_url", "twilio_api_url", "graph_api_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")
