"""The 24-hour window of a conversation on WhatsApp, Messenger or Instagram, as live chat sees it: Meta lets a
business write freely only within 24 hours of the customer's last message. The Inbox shows when it closes, and an
operator's reply that could not go is refused before anything is written or sent (422 `channel_window_closed`).

The customer's last message is the session's latest row with a query (an answered question, or a message written
during the live chat). After the window, WhatsApp takes only the channel's template (`settings.template`), and
Messenger and Instagram a person's reply (tagged `HUMAN_AGENT`) for 7 days: a reply is refused only when neither
applies. The channels feature sends under the same rule (`channels.window`), whose hours both read from
`models.channel`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import iso
from botyard.errors import AppError, ErrorCode
from botyard.live.repository import ChannelWindowRepository
from botyard.models import ChatSession
from botyard.models.channel import HUMAN_AGENT_WINDOW as HUMAN_AGENT_FOR
from botyard.models.channel import MESSAGING_WINDOW as OPEN_FOR
from botyard.models.channel import WINDOWED_TYPES as WINDOWED


async def channels_of(db: AsyncSession, sessions: Sequence[ChatSession]) -> dict[str, tuple[str, str | None]]:
    """For each session on a channel, the channel's type and, on a windowed one, when its window closes (ISO; None:
    not windowed, or the customer never wrote)."""
    on_channels = [session for session in sessions if session.channel_uuid is not None]
    kinds = await ChannelWindowRepository(db).channel_types(
        sorted({session.channel_uuid or "" for session in on_channels})
    )
    typed = {
        session.uuid: kinds[session.channel_uuid or ""][0] for session in on_channels if session.channel_uuid in kinds
    }
    last = await ChannelWindowRepository(db).last_customer_messages(
        [uuid for uuid, kind in typed.items() if kind in WINDOWED]
    )
    return {uuid: (kind, iso(last[uuid] + OPEN_FOR) if uuid in last else None) for uuid, kind in typed.items()}


async def check_reply(db: AsyncSession, session: ChatSession, now: datetime) -> None:
    """422 `channel_window_closed` when the operator's reply could not reach the customer on their channel."""
    if session.channel_uuid is None:
        return
    kind, settings = (await ChannelWindowRepository(db).channel_types([session.channel_uuid])).get(
        session.channel_uuid, ("", {})
    )
    if kind not in WINDOWED:
        return
    last = (await ChannelWindowRepository(db).last_customer_messages([session.uuid])).get(session.uuid)
    if last is not None and now < last + OPEN_FOR:
        return
    if kind == "whatsapp" and settings.get("template"):
        return  # it goes as the channel's template
    if kind != "whatsapp" and last is not None and now < last + HUMAN_AGENT_FOR:
        return  # it goes tagged HUMAN_AGENT
    if kind == "whatsapp":
        what = (
            "WhatsApp then takes only an approved template: choose one in the channel's settings.template (its name "
            "and language) and send again, or wait for the customer to write"
        )
    else:
        what = f"{kind.capitalize()} takes a person's reply only within 7 days of it: wait for the customer to write"
    raise AppError(
        ErrorCode.CHANNEL_WINDOW_CLOSED,
        f"The customer's last message on {kind.capitalize()} was more than 24 hours ago; {what}. Nothing was sent.",
    )
