"""The channel API's shapes. Not in the hosted interface; designed in its style."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, StringConstraints
from typing_extensions import TypedDict

from botyard.schemas import RequestModel

ChannelTypeName = Literal["telegram", "slack", "generic"]
Secret = Annotated[str, StringConstraints(min_length=1, max_length=512, strip_whitespace=True)]
Url = Annotated[str, StringConstraints(min_length=1, max_length=2048, strip_whitespace=True)]
Name = Annotated[str, StringConstraints(max_length=200, strip_whitespace=True)]

DEFAULT_BURST_SECONDS = 1.0
DEFAULT_IDLE_HOURS = 24.0


class Credentials(RequestModel):
    """What the provider gave the owner: Telegram's `bot_token` (from @BotFather); Slack's `bot_token`
    (`xoxb-...`) and `signing_secret` (the app's Basic Information page); the generic channel's `callback_url`,
    where its replies are POSTed (its signing secret is made by the service)."""

    bot_token: Secret | None = None
    signing_secret: Secret | None = None
    callback_url: Url | None = None


class ChannelSettings(RequestModel):
    mode: Literal["webhook", "polling"] = Field(
        default="webhook",
        description="Telegram only: `webhook` (Telegram POSTs to the inbound URL: BOTYARD_PUBLIC_URL must be public "
        "https) or `polling` (the service asks Telegram for updates: behind NAT, no public address needed). Choosing "
        "one removes the other at Telegram.",
    )
    burst_seconds: float = Field(
        default=DEFAULT_BURST_SECONDS,
        ge=0,
        le=30,
        description="How long a conversation must be quiet before its messages are answered, as one question "
        "(people split a question over several messages); a newer message restarts the wait.",
    )
    session_idle_hours: float = Field(
        default=DEFAULT_IDLE_HOURS,
        gt=0,
        le=24 * 90,
        description="After this long without a message, the external user's next message starts a new session.",
    )


class ChannelCreate(RequestModel):
    type: ChannelTypeName
    name: Name = ""
    credentials: Credentials = Field(default_factory=Credentials)
    settings: ChannelSettings = Field(default_factory=ChannelSettings)
    enabled: bool = True


class ChannelUpdate(RequestModel):
    name: Name | None = None
    credentials: Credentials | None = None
    settings: ChannelSettings | None = None
    enabled: bool | None = None


class ChannelTest(RequestModel):
    to: Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)] = Field(
        description="Where to send it: a Telegram chat id (a private chat's is the user's id; the chat must have "
        "written to the bot first), a Slack channel or DM id (`C...`, `D...`; the bot must be in it), or the "
        "generic channel's user id (`user.id` of the callback's event)."
    )
    text: Annotated[str, StringConstraints(min_length=1, max_length=4000, strip_whitespace=True)] | None = Field(
        default=None, description="The message (Markdown, as answers are); by default a short test sentence."
    )


class ChannelTestSent(TypedDict):
    sent: bool
    """Always true: a message the provider did not take answers 422 `channel_send_failed` with its reason."""
    to: str
    parts: int
    """How many messages it took (a long text is split as answers are)."""


class ChannelStatus(TypedDict):
    last_event_at: str | None
    last_sent_at: str | None
    last_error: str
    last_error_at: str | None


class Channel(TypedDict):
    uuid: str
    chatbot_uuid: str
    type: str
    name: str
    enabled: bool
    inbound_url: str
    """Where the provider delivers (Telegram's webhook is set to it when the channel is made)."""
    credentials: dict[str, str]
    """Each credential as a hint (`••••1234`): never shown back."""
    settings: dict[str, Any]
    status: ChannelStatus
    created_at: str
    modified_at: str
    signing_secret: NotRequired[str]
    """The generic channel's `whsec_` secret, only when it is made: store it then, it is never shown again."""
