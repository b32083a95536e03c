"""Channel rules: what each type needs, its credentials sealed and shown only as hints, Telegram's token checked
(`getMe`) and its webhook set when the channel is made, another account's channel missing.

Made (and changed) in this order, so that a refusal changes nothing: the bot is checked to be no other channel's
(`channels.bots`: one channel per bot, in a read of its own), the credentials are checked with the provider, before
any database write (no lock is held while the provider answers), then the row is written, the bot's uniqueness
checked once more by the database.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels import bots, graph, slack, telegram
from botyard.channels.calls import ProviderFailed, SlackApi, TelegramApi
from botyard.channels.email import connect as email
from botyard.channels.meta import META_TYPES
from botyard.channels.repository import ChannelRepository
from botyard.channels.schemas import Channel, ChannelCreate, ChannelSettings, ChannelUpdate, Credentials
from botyard.channels.sms import api as sms
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.config import Settings
from botyard.db.base import iso, new_uuid
from botyard.db.session import Database
from botyard.egress import EgressClient
from botyard.errors import AppError, ErrorCode
from botyard.models import Channel as ChannelRow
from botyard.models import ChannelType
from botyard.outbox.signing import new_secret
from botyard.service_settings.cipher import Cipher
from botyard.webhooks.service import check_url

REQUIRED = {
    ChannelType.TELEGRAM: ("bot_token",),
    ChannelType.SLACK: ("bot_token", "signing_secret"),
    ChannelType.GENERIC: ("callback_url",),
    ChannelType.SMS: ("account_sid", "auth_token"),
    ChannelType.WHATSAPP: ("access_token", "app_secret", "phone_number_id"),
    ChannelType.MESSENGER: ("access_token", "app_secret", "page_id"),
    ChannelType.INSTAGRAM: ("access_token", "app_secret", "instagram_account_id"),
    ChannelType.EMAIL: (),  # checked by `email.connect`, which knows which of its many are needed
}
"""The credentials each type needs; the service makes the rest (Telegram's webhook secret, the generic signing
secret)."""


def inbound_url(settings: Settings, channel_uuid: str) -> str:
    return f"{settings.public_url.rstrip('/')}/channels/{channel_uuid}/inbound"


async def create(
    db: AsyncSession,
    settings: Settings,
    egress: EgressClient,
    account_uuid: str,
    chatbot_uuid: str,
    body: ChannelCreate,
    database: Database,
) -> tuple[ChannelRow, str | None]:
    """The new channel, and the generic channel's signing secret (shown this once; None for Telegram). `database`
    reads whether the bot is free before the provider is asked (a bot's webhook set for a second channel would take
    the first one's messages), without taking `db`'s turn to write."""
    kind = ChannelType(body.type)
    given = _given(kind, body.credentials)
    bot = bots.fingerprint(settings, kind.value, bots.key(kind.value, given))
    if bot is not None:
        async with database.transaction(write=False) as read:
            if await ChannelRepository(read).bot_in_use(bot):
                raise bots.in_use(kind.value)
    uuid = new_uuid()
    plain, listen, given = await _connected(settings, egress, uuid, body, given)
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    shown_once = plain.get("signing_secret") if kind == ChannelType.GENERIC else None
    row = ChannelRow(
        uuid=uuid,
        chatbot_uuid=chatbot.uuid,
        type=kind.value,
        name=body.name,
        enabled=body.enabled,
        settings=body.settings.model_dump(exclude_none=True),
        bot_fingerprint=bot,
        **listen,
        **_sealed(settings, plain, shown=given),
    )
    if not await ChannelRepository(db).write_unless_bot_taken(row):
        raise bots.in_use(kind.value)
    return row, shown_once


async def update(
    db: AsyncSession,
    settings: Settings,
    egress: EgressClient,
    account_uuid: str,
    channel_uuid: str,
    body: ChannelUpdate,
) -> ChannelRow:
    """Change the name, settings, `enabled` or credentials (a new bot token is checked and its webhook set, as at
    creation; credentials not given stay)."""
    repository = ChannelRepository(db)
    row = await repository.get_owned(account_uuid, channel_uuid)
    values: dict[str, Any] = body.given()
    if body.settings is not None:
        values["settings"] = body.settings.model_dump(exclude_none=True)
    if body.credentials is not None:
        kind = ChannelType(row.type)
        plain = {**open_secrets(settings, row), **body.credentials.given()}
        if kind == ChannelType.SMS:
            plain = sms.changed(plain, body.credentials)
        bot = bots.fingerprint(settings, row.type, bots.key(row.type, plain))
        if bot is not None and bot != row.bot_fingerprint and await repository.bot_in_use(bot, row.uuid):
            raise bots.in_use(row.type)
        values["bot_fingerprint"] = bot
        if kind == ChannelType.EMAIL:
            plain, listen = await email.checked(settings, egress, body.credentials, open_secrets(settings, row))
            values |= listen if listen["poll_state"] != row.poll_state else {}
        elif kind == ChannelType.GENERIC:
            plain["callback_url"] = await check_url(egress, plain["callback_url"])
        elif kind == ChannelType.SLACK:
            await _connect_slack(settings, egress, plain)
        elif kind == ChannelType.SMS:
            await sms.connect(settings, egress, plain)
        elif kind.value in META_TYPES:
            await graph.connect(settings, egress, kind, plain)
        elif "bot_token" in body.credentials.given():
            await _connect_telegram(settings, egress, row.uuid, plain, _mode(body, row))
        values.pop("credentials")
        values.update(_sealed(settings, plain, shown={**row.hints, **body.credentials.given()}))
    elif row.type == ChannelType.TELEGRAM and _mode(body, row) != row.settings.get("mode", "webhook"):
        await _connect_telegram(settings, egress, row.uuid, open_secrets(settings, row), _mode(body, row))
        values |= {"poll_holder": None, "poll_expires_at": None}
    if not await repository.write_unless_bot_taken(row, values):
        raise bots.in_use(row.type)
    return row


async def list_of_chatbot(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Sequence[ChannelRow]:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return await ChannelRepository(db).of_chatbot(chatbot.uuid)


async def get_owned(db: AsyncSession, account_uuid: str, channel_uuid: str) -> ChannelRow:
    return await ChannelRepository(db).get_owned(account_uuid, channel_uuid)


async def delete(db: AsyncSession, account_uuid: str, channel_uuid: str) -> None:
    """Delete the channel with its events and replies; its sessions stay, as conversations of the chatbot."""
    repository = ChannelRepository(db)
    await repository.delete(await repository.get_owned(account_uuid, channel_uuid))


def open_secret(settings: Settings, row: ChannelRow, name: str) -> str | None:
    """One of the channel's credentials in the clear, or None (not stored, or this key cannot open it): what a
    delivery's check needs, without opening the others (each is a Fernet token to verify and decrypt)."""
    token = row.secrets.get(name)
    return None if token is None else Cipher(settings).open(token)


def open_secrets(settings: Settings, row: ChannelRow) -> dict[str, str]:
    """The channel's credentials in the clear (for a call to its provider), those this key can open."""
    cipher = Cipher(settings)
    opened = {name: cipher.open(token) for name, token in row.secrets.items()}
    return {name: plain for name, plain in opened.items() if plain is not None}


async def wire(
    db: AsyncSession, settings: Settings, rows: Sequence[ChannelRow], signing_secret: str | None = None
) -> list[Channel]:
    """The channels as the API shows them, each with its latest delivery's time."""
    last = await ChannelRepository(db).last_events([row.uuid for row in rows])
    return [to_wire(settings, row, last.get(row.uuid), signing_secret) for row in rows]


def to_wire(
    settings: Settings, row: ChannelRow, last_event_at: datetime | None = None, signing_secret: str | None = None
) -> Channel:
    wire: Channel = {
        "uuid": row.uuid,
        "chatbot_uuid": row.chatbot_uuid,
        "type": row.type,
        "name": row.name,
        "enabled": row.enabled,
        "inbound_url": inbound_url(settings, row.uuid),
        "credentials": {name: f"••••{hint}" for name, hint in row.hints.items()},
        "settings": {**ChannelSettings().model_dump(exclude_none=True), **row.settings},
        "status": {
            "last_event_at": None if last_event_at is None else iso(last_event_at),
            "last_sent_at": None if row.last_sent_at is None else iso(row.last_sent_at),
            "last_error": row.last_error,
            "last_error_at": None if row.last_error_at is None else iso(row.last_error_at),
        },
        "created_at": iso(row.created_at),
        "modified_at": iso(row.modified_at),
    }
    if signing_secret is not None:
        wire["signing_secret"] = signing_secret
    if row.type in META_TYPES:  # it guards only the subscription handshake: the owner may need it again (meta)
        wire["verify_token"] = open_secret(settings, row, "verify_token") or ""
    return wire


async def _connected(
    settings: Settings, egress: EgressClient, uuid: str, body: ChannelCreate, given: dict[str, str]
) -> tuple[dict[str, str], dict[str, Any], dict[str, str]]:
    """A new channel's credentials checked with its provider, with what the service makes itself (a signing secret,
    a webhook or verify token): the credentials to seal, where its listener starts (email), and those the owner
    gave (which the API hints at)."""
    kind, plain = ChannelType(body.type), dict(given)
    if kind == ChannelType.EMAIL:
        plain, listen = await email.checked(settings, egress, body.credentials)
        return plain, listen, plain
    if kind == ChannelType.GENERIC:
        plain["callback_url"] = await check_url(egress, given["callback_url"])
        plain["signing_secret"] = new_secret()
    elif kind == ChannelType.SLACK:
        await _connect_slack(settings, egress, plain)
    elif kind == ChannelType.SMS:
        await sms.connect(settings, egress, plain)
    elif kind.value in META_TYPES:
        plain["verify_token"] = secrets.token_urlsafe(32)
        await graph.connect(settings, egress, kind, plain)
    else:
        plain["webhook_secret"] = secrets.token_urlsafe(32)
        await _connect_telegram(settings, egress, uuid, plain, body.settings.mode)
    return plain, {}, given


def _given(kind: ChannelType, credentials: Credentials) -> dict[str, str]:
    given = {name: value for name, value in credentials.given().items() if value}
    missing = [name for name in REQUIRED[kind] if name not in given]
    if missing:
        details = [{"field": f"credentials.{name}", "message": "required", "type": "missing"} for name in missing]
        raise AppError(ErrorCode.VALIDATION_ERROR, f"A {kind} channel needs credentials.{missing[0]}", details)
    chosen = {name: given[name] for name in REQUIRED[kind]}
    return (chosen | sms.sender(credentials)) if kind == ChannelType.SMS else chosen


def _mode(body: ChannelUpdate, row: ChannelRow) -> str:
    return body.settings.mode if body.settings is not None else str(row.settings.get("mode", "webhook"))


async def _connect_telegram(
    settings: Settings, egress: EgressClient, channel_uuid: str, plain: dict[str, str], mode: str
) -> None:
    """Check the bot token with `getMe`, then point the bot's webhook at the channel's inbound URL (`webhook`), or
    remove its webhook (`polling`: Telegram keeps the updates for `getUpdates`, which a webhook would refuse)."""
    api = TelegramApi(egress, settings.telegram_api_url)
    if mode == "polling":
        try:
            await api.call(plain["bot_token"], telegram.GET_ME)
            await api.call(plain["bot_token"], telegram.DELETE_WEBHOOK)
        except ProviderFailed as error:
            raise AppError(ErrorCode.CHANNEL_REFUSED, f"Telegram refused the bot token: {error.reason}") from None
        return
    if not settings.public_url.startswith("https://"):
        raise AppError(
            ErrorCode.PUBLIC_URL_REQUIRED,
            f"Telegram delivers updates only to an https address it can reach: set BOTYARD_PUBLIC_URL (now "
            f"{settings.public_url}) to this service's public https address, or choose settings.mode `polling`.",
        )
    try:
        await api.call(plain["bot_token"], telegram.GET_ME)
        await api.call(
            plain["bot_token"], telegram.set_webhook(inbound_url(settings, channel_uuid), plain["webhook_secret"])
        )
    except ProviderFailed as error:
        raise AppError(ErrorCode.CHANNEL_REFUSED, f"Telegram refused the bot token: {error.reason}") from None


async def _connect_slack(settings: Settings, egress: EgressClient, plain: dict[str, str]) -> None:
    """Check the bot token with `auth.test`, and keep the bot's own user id (its mentions, its own messages)."""
    try:
        answer = await SlackApi(egress, settings.slack_api_url).call(plain["bot_token"], slack.AUTH_TEST)
    except ProviderFailed as error:
        raise AppError(ErrorCode.CHANNEL_REFUSED, f"Slack refused the bot token: {error.reason}") from None
    plain["bot_user_id"] = str(answer.get("user_id", ""))


def _sealed(settings: Settings, plain: dict[str, str], shown: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """The credentials sealed, and hints of those the owner gave (`shown`): what the service made itself (a
    signing secret, a webhook secret) is not hinted at."""
    cipher = Cipher(settings)
    hints = {name: value[-4:] for name, value in plain.items() if name in shown}
    return {"secrets": {name: cipher.seal(value) for name, value in plain.items()}, "hints": hints}
