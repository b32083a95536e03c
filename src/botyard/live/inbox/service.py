"""The operators' inbox besides its list (`listing`): marking a conversation read, for the calling person or (an API
key) for everyone, and the visitors of all the account's chatbots who wait for a person."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.history.service import preview, waiting
from botyard.chat.service import get_owned_session
from botyard.db.base import iso
from botyard.identity.principal import Principal
from botyard.live import service as live
from botyard.live.inbox.repository import InboxRepository
from botyard.live.inbox.schemas import Seen, Waiting, WaitingSession
from botyard.models import ChatbotEventKind, SessionMeta


async def seen(db: AsyncSession, principal: Principal, session_uuid: str, now: datetime) -> Seen:
    """A person has read the conversation: their own unread count starts again from now (the others' stay); an API
    key marks it read for every operator, as before people existed. Event `conversation_seen` (`user_uuid`: whose
    read it is, absent for everyone's)."""
    if principal.user_uuid is None:
        session = await live.mark_seen(db, principal.account_uuid, session_uuid, now)
    else:
        session = await get_owned_session(db, principal.account_uuid, session_uuid)
        await InboxRepository(db).mark_read(session.uuid, principal.user_uuid, now)
        await live.record(db, session, ChatbotEventKind.CONVERSATION_SEEN, now, user_uuid=principal.user_uuid)
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
