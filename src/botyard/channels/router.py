"""Channels of a chatbot: where it answers besides the widget. Not in the hosted interface; designed in its style
(`/chatbot/{uuid}/channel/create` to make one, `/channel/{uuid}` to follow it)."""

from __future__ import annotations

from fastapi import APIRouter

from botyard.channels import sending, service
from botyard.channels.schemas import Channel, ChannelCreate, ChannelTest, ChannelTestSent, ChannelUpdate
from botyard.deps import AppClock, AppDatabase, AppSettings, DbSession, Egress, ReadDbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import Audited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import Success

router = APIRouter(tags=["channels"])


@router.post(
    "/chatbot/{uuid}/channel/create",
    response_model=Channel,
    dependencies=[requires(Permission.MANAGE, made(AuditObject.CHANNEL))],
)
async def create_channel(
    uuid: str,
    body: ChannelCreate,
    db: DbSession,
    account: CurrentAccount,
    settings: AppSettings,
    egress: Egress,
    database: AppDatabase,
) -> Channel:
    """Connect the chatbot to a provider. `telegram`: `credentials.bot_token` from @BotFather, checked with
    Telegram (`getMe`); the bot's webhook is then pointed at this channel's `inbound_url` (BOTYARD_PUBLIC_URL must be
    the service's public https address: 422 `public_url_required`; a token Telegram refuses: 422
    `channel_refused`; a bot another channel is on, of any chatbot: 409 `channel_bot_in_use`). `generic`:
    `credentials.callback_url`, where replies are POSTed; the answer carries the `signing_secret` both directions
    are signed with, shown this once."""
    row, secret = await service.create(db, settings, egress, account, uuid, body, database)
    [wire] = await service.wire(db, settings, [row], secret)
    return wire


@router.get("/chatbot/{uuid}/channels", response_model=list[Channel], dependencies=[requires(Permission.READ)])
async def list_channels(uuid: str, db: ReadDbSession, account: CurrentAccount, settings: AppSettings) -> list[Channel]:
    """The chatbot's channels, oldest first, with their status (last event, last reply sent, last error)."""
    return await service.wire(db, settings, await service.list_of_chatbot(db, account, uuid))


@router.get("/channel/{uuid}", response_model=Channel, dependencies=[requires(Permission.READ)])
async def get_channel(uuid: str, db: ReadDbSession, account: CurrentAccount, settings: AppSettings) -> Channel:
    """One channel: its credentials as hints only, its settings and status."""
    [wire] = await service.wire(db, settings, [await service.get_owned(db, account, uuid)])
    return wire


@router.post(
    "/channel/{uuid}/update",
    response_model=Channel,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.CHANNEL, AuditAction.UPDATED))],
)
async def update_channel(
    uuid: str, body: ChannelUpdate, db: DbSession, account: CurrentAccount, settings: AppSettings, egress: Egress
) -> Channel:
    """Change the name, `enabled`, the settings, or a credential (checked as at creation; those not given stay)."""
    [wire] = await service.wire(db, settings, [await service.update(db, settings, egress, account, uuid, body)])
    return wire


@router.delete(
    "/channel/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.CHANNEL, AuditAction.DELETED))],
)
async def delete_channel(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete the channel, its events and its unsent replies; its conversations stay with the chatbot."""
    await service.delete(db, account, uuid)
    return Success()


@router.post(
    "/channel/{uuid}/test",
    response_model=ChannelTestSent,
    responses=error_responses(
        {ErrorCode.CHANNEL_SEND_FAILED: "the provider did not take the message (its reason, and what to check)."}
    ),
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.CHANNEL, AuditAction.STARTED, "test message"))],
)
async def test_channel(
    uuid: str,
    body: ChannelTest,
    db: ReadDbSession,
    account: CurrentAccount,
    settings: AppSettings,
    egress: Egress,
    clock: AppClock,
) -> ChannelTestSent:
    """Send a message on the channel now, the way its replies are sent (even on a disabled channel), to `to`: a
    Telegram chat id, a Slack channel id, the generic channel's user id. Sent: `{"sent": true, "parts"}`; a message
    the provider refused (a chat the bot may not write to, a callback that failed): 422 `channel_send_failed` with
    the provider's reason. Nothing is stored, and the channel's status does not change."""
    row = await service.get_owned(db, account, uuid)
    sender = sending.ChannelSender(settings, egress, clock)
    parts = await sending.send_test(sender, row, body.to, body.text)
    return {"sent": True, "to": body.to, "parts": parts}
