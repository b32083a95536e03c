"""The operators' inbox, read in one query of the conversations' history; what to show of each is decided here."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.history.service import QueuedSession, conversation_channel, operator_queue, preview, waiting
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.live import channel_window
from botyard.live import service as live
from botyard.live.inbox.schemas import Inbox, InboxSession, Seen, Waiting, WaitingSession
from botyard.models import SessionMeta


async def inbox(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Inbox:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    queue = await operator_queue(db, chatbot.uuid)
    windows = await channel_window.channels_of(db, [found.session for found, _ in queue])
    entries = [_entry(found, asking, windows) for found, asking in queue]
    # Triage order: the waiting ones first, the longest waiting first (ISO times sort as text); then the others,
    # the latest activity first.
    waiting = sorted((entry for entry in entries if entry["waiting_since"]), key=lambda e: e["waiting_since"] or "")
    sessions = waiting + [entry for entry in entries if not entry["waiting_since"]]
    return {"unread": sum(entry["unread"] for entry in sessions), "sessions": sessions}


def _entry(found: QueuedSession, asking: str | None, windows: dict[str, tuple[str, str | None]]) -> InboxSession:
    session, meta = found.session, SessionMeta.of(found.session)
    waiting = session.human_requested and not session.live_chat
    return {
        "uuid": session.uuid,
        "created_at": iso(session.created_at),
        "modified_at": iso(session.modified_at),
        "human_requested": session.human_requested,
        "live_chat": session.live_chat,
        "waiting_since": meta.human_requested_at if waiting else None,
        "preview": preview(asking or found.first_query),
        "unread": found.unread,
        "seen_at": iso(session.operator_seen_at) if session.operator_seen_at else None,
        "tags": meta.tags,
        "channel": conversation_channel(session),
        "channel_type": windows.get(session.uuid, (None, None))[0],
        "channel_window_closes_at": windows.get(session.uuid, (None, None))[1],
    }


async def seen(db: AsyncSession, account_uuid: str, session_uuid: str, now: datetime) -> Seen:
    session = await live.mark_seen(db, account_uuid, session_uuid, now)
    return {"session_uuid": session.uuid, "seen_at": iso(now)}


MAX_WAITING = 100


async def waiting_everywhere(db: AsyncSession, account_uuid: str) -> Waiting:
    """What the dashboard's shell announces on every page: the visitors of all the account's chatbots who wait."""
    sessions: list[WaitingSession] = [
        {
            "chatbot_uuid": session.chatbot_uuid,
            "chatbot_name": name,
            "session_uuid": session.uuid,
            "waiting_since": SessionMeta.of(session).human_requested_at,
            "preview": preview(asked),
        }
        for session, name, asked in await waiting(db, account_uuid, MAX_WAITING)
    ]
    sessions.sort(key=lambda entry: entry["waiting_since"] or "")
    return {"waiting": len(sessions), "sessions": sessions}
