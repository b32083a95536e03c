"""One channel per bot: two channels on one Telegram bot (or one Slack app's bot token) would take each other's
updates, whether by webhook (each `setWebhook` moves the bot's deliveries to the last channel made) or by polling
(Telegram answers the second `getUpdates` with 409). A channel stores a fingerprint of its bot token, unique in the
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
FINGERPRINTED = {ChannelType.TELEGRAM.value, ChannelType.SLACK.value}
"""The types whose `bot_token` is one bot's own: a generic channel has no bot."""


def fingerprint(settings: Settings, kind: str, token: str) -> str | None:
    """The token's fingerprint for a channel of type `kind` (None for a type without a bot)."""
    if kind not in FINGERPRINTED:
        return None
    key = Cipher(settings).derived_key(PURPOSE)
    return hmac.new(key, f"{kind}:{token}".encode(), hashlib.sha256).hexdigest()


def in_use(kind: str) -> AppError:
    """The refusal of a second channel on a bot: the same words whoever's the other channel is, so that it reveals
    nothing of another account."""
    if kind == ChannelType.SLACK.value:
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
