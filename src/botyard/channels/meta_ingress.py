"""What ingress does for Meta's channels: the subscription handshake answered, and a signed delivery read as the
batch of its channel's type (WhatsApp's, or Messenger's and Instagram's shape)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import PlainTextResponse

from botyard.channels import messenger, meta, whatsapp
from botyard.channels.bots import KEYS
from botyard.channels.service import open_secret
from botyard.config import Settings
from botyard.errors import AppError, ErrorCode
from botyard.models import Channel, ChannelType


def subscribed(settings: Settings, channel: Channel, query: Mapping[str, str]) -> PlainTextResponse:
    """The challenge as plain text; 403 `verify_token_invalid` when the token is not the channel's (nothing is
    written either way)."""
    challenge = meta.verified(query, open_secret(settings, channel, "verify_token") or "")
    if challenge is None:
        raise AppError(
            ErrorCode.VERIFY_TOKEN_INVALID,
            "The verify token is not this channel's: paste the channel's verify_token into the Meta app's webhook "
            "form (hub.mode must be subscribe).",
        )
    return PlainTextResponse(challenge)


def meta_delivery(settings: Settings, channel: Channel, parsed: Any) -> meta.Batch:
    """The delivery's messages and statuses for the channel's own number or account."""
    account = open_secret(settings, channel, KEYS[channel.type][0]) or ""
    if channel.type == ChannelType.WHATSAPP:
        return whatsapp.batch(parsed, account)
    return messenger.batch(parsed, channel.type, account)
