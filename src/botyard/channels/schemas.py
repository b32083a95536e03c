"""The channel API's shapes. Not in the hosted interface; designed in its style."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, StringConstraints
from typing_extensions import TypedDict

from botyard.schemas import RequestModel

ChannelTypeName = Literal["telegram", "slack", "generic", "whatsapp", "messenger", "instagram", "email", "sms"]
Secret = Annotated[str, StringConstraints(min_length=1, max_length=512, strip_whitespace=True)]
Url = Annotated[str, StringConstraints(min_length=1, max_length=2048, strip_whitespace=True)]
Name = Annotated[str, StringConstraints(max_length=200, strip_whitespace=True)]
Host = Annotated[
    str, StringConstraints(min_length=1, max_length=253, strip_whitespace=True, pattern=r"^[A-Za-z0-9.\-:\[\]]+$")
]
Port = Annotated[int, Field(ge=1, le=65535)]
Address = Annotated[str, StringConstraints(max_length=254, strip_whitespace=True, pattern=r"^[^@\s<>]+@[^@\s<>]+$")]

DEFAULT_BURST_SECONDS = 1.0
DEFAULT_IDLE_HOURS = 24.0


class Credentials(RequestModel):
    """What the provider gave the owner: Telegram's `bot_token` (from @BotFather); Slack's `bot_token`
    (`xoxb-...`) and `signing_secret` (the app's Basic Information page); the generic channel's `callback_url`,
    where its replies are POSTed (its signing secret is made by the service); SMS's Twilio `account_sid` and
    `auth_token` (the Twilio Console's Account Info) and the number it sends from, `phone_number` (E.164), or a
    `messaging_service_sid` (`MG...`). Meta's channels (WhatsApp, Messenger,
    Instagram): the `access_token` (WhatsApp: a system user's token; Messenger and Instagram: the Page access
    token), the Meta app's `app_secret` (App settings, Basic), and WhatsApp's `phone_number_id`, Messenger's
    `page_id` or Instagram's `instagram_account_id` (the Instagram professional account's id); the webhook's verify
    token is made by the service."""

    bot_token: Secret | None = None
    signing_secret: Secret | None = None
    callback_url: Url | None = None
    account_sid: Secret | None = None
    auth_token: Secret | None = None
    phone_number: Secret | None = None
    messaging_service_sid: Secret | None = None
    access_token: Secret | None = None
    app_secret: Secret | None = None
    phone_number_id: Secret | None = None
    page_id: Secret | None = None
    instagram_account_id: Secret | None = None
    imap_host: Host | None = Field(default=None, description="Email: the mailbox's IMAP server (`imap.gmail.com`).")
    imap_port: Port | None = Field(default=None, description="Email: 993 for `tls` (the default), 143 for `none`.")
    imap_security: Literal["tls", "none"] | None = None
    imap_username: Secret | None = None
    imap_password: Secret | None = Field(default=None, description="Email: the mailbox's (app) password.")
    address: Address | None = Field(default=None, description="Email: the address the channel answers as.")
    smtp_host: Host | None = Field(
        default=None, description="Email: the server replies are sent through (default: the service's BOTYARD_SMTP_*)."
    )
    smtp_port: Port | None = None
    smtp_security: Literal["starttls", "tls", "none"] | None = None
    smtp_username: Secret | None = None
    smtp_password: Secret | None = None


class MessageTemplate(RequestModel):
    """The approved WhatsApp template a reply goes as outside the 24-hour window."""

    name: Annotated[str, StringConstraints(min_length=1, max_length=512, strip_whitespace=True)]
    language: Annotated[str, StringConstraints(min_length=2, max_length=15, strip_whitespace=True)] = Field(
        default="en_US", description="The template's language code, as approved (`en_US`, `pt_BR`)."
    )
    fill: Literal["text", "none"] = Field(
        default="text",
        description="`text`: the reply's text is the template body's one parameter (`{{1}}`); `none`: the template "
        "has no parameter and is sent as it is.",
    )


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
    template: MessageTemplate | None = Field(
        default=None,
        description="WhatsApp only: the approved template a reply goes as more than 24 hours after the customer's "
        "last message (without one, such a reply is refused: `channel_window_closed`).",
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
        "written to the bot first), a Slack channel or DM id (`C...`, `D...`; the bot must be in it), the "
        "generic channel's user id (`user.id` of the callback's event), or a phone number in E.164 (SMS)."
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
    verify_token: NotRequired[str]
    """Meta's channels: what to paste as the webhook's verify token in the Meta app (it guards only the
    subscription handshake, so it is shown whenever the channel is read)."""
