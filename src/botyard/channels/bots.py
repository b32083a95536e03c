"""One channel per bot: two channels on one Telegram bot (or one Slack app's bot token, one WhatsApp number, one
Page, one Instagram account, one Twilio number) would take each other's updates, whether by webhook (each
`setWebhook` moves the bot's deliveries to the last channel made) or by polling (Telegram answers the second
`getUpdates` with 409). A channel stores a fingerprint of its bot token, unique in the
`channel` table: an HMAC-SHA256 keyed with a key derived from the one that seals the credentials, so that the
stored value says nothing of the token, and a copy of the database without the key cannot be searched for one."""

from __future__ import annotations

import hashlib
import hmac

from botyard.config import Settings
from botyard.errors import AppError, ErrorCode
from botyard.models import ChannelType
from botyard.service_settings.cipher import Cipher

PURPOSE = "channel-bot-fingerprint"
FINGERPRINTED = {
    ChannelType.TELEGRAM.value,
    ChannelType.SLACK.value,
    ChannelType.WHATSAPP.value,
    ChannelType.MESSENGER.value,
    ChannelType.INSTAGRAM.value,
    ChannelType.SMS.value,
}
"""The types with one bot, number or account of their own: a generic channel has none."""
KEYS = {
    ChannelType.WHATSAPP.value: ("phone_number_id",),
    ChannelType.MESSENGER.value: ("page_id",),
    ChannelType.INSTAGRAM.value: ("instagram_account_id",),
    ChannelType.SMS.value: ("phone_number", "messaging_service_sid"),
}
"""The credential that names a channel's one number or account (the first given, for SMS: the number it sends from,
or its Messaging Service); every other type's is its `bot_token`. Meta sends its webhooks to the app and Twilio a
number's messages to one webhook: one number's messages taken by two channels would be answered twice."""


NAMES = {
    ChannelType.WHATSAPP.value: "WhatsApp number (phone_number_id)",
    ChannelType.MESSENGER.value: "Facebook Page (page_id)",
    ChannelType.INSTAGRAM.value: "Instagram account (instagram_account_id)",
}


def key(kind: str, credentials: dict[str, str]) -> str:
    """What a channel of type `kind` is fingerprinted by: its bot token, Meta's number or account id, or the Twilio
    number (or Messaging Service) SMS sends from."""
    return next((credentials[name] for name in KEYS.get(kind, ("bot_token",)) if credentials.get(name)), "")


def fingerprint(settings: Settings, kind: str, token: str) -> str | None:
    """The token's fingerprint for a channel of type `kind` (None for a type without a bot)."""
    if kind not in FINGERPRINTED:
        return None
    key = Cipher(settings).derived_key(PURPOSE)
    return hmac.new(key, f"{kind}:{token}".encode(), hashlib.sha256).hexdigest()


def in_use(kind: str) -> AppError:
    """The refusal of a second channel on a bot: the same words whoever's the other channel is, so that it reveals
    nothing of another account."""
    if kind == ChannelType.SMS.value:
        what = (
            "This Twilio number (or Messaging Service) is already connected to another channel (one number answers "
            "on one channel: its messages reach one webhook). Delete that channel first, or use another number."
        )
    elif kind in NAMES:
        what = (
            f"This {NAMES[kind]} is already connected to another channel (one channel per number, page or account: "
            "two would answer each message twice). Delete that channel first."
        )
    elif kind == ChannelType.SLACK.value:
        what = (
            "This Slack bot token is already connected to another channel. Delete that channel first, or install "
            "another Slack app and use its Bot User OAuth Token."
        )
    else:
        what = (
            "This Telegram bot is already connected to another channel (one bot answers on one channel: two would "
            "take each other's messages). Delete that channel first, or make a new bot with @BotFather (/newbot) "
            "and use its token."
        )
    return AppError(ErrorCode.CHANNEL_BOT_IN_USE, what)
