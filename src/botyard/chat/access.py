"""Who may chat in a session, and as whom: the session uuid is a capability for `public` and `hybrid` chatbots.

Widgets and some clients stream without the owner's key, so for those chatbots knowing the session uuid is enough.
A `private` chatbot's sessions need the owner's key. Without a key, a session that does not exist and a private one
answer the same 401, so the answer says nothing about which uuids exist; with another account's key they answer the
same 404 as everywhere else.

On an open chatbot it does not own, a key is an anonymous visitor, exactly: the same rate limits (per client
address and the service's anonymous ceiling, never a session's window), the same capability (the session uuid),
and no session documents of its own account. A key is not refused there because clients written for the hosted
service send their key with every request, also on a chatbot they only visit; refusing would break them while a
keyless request gets the same answers. Only the owner's key is the owner (see docs/sessions.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.repository import ChatSessionRepository
from botyard.errors import not_found, unauthorized
from botyard.models import Chatbot, ChatSession, Visibility

OPEN_VISIBILITIES = frozenset({Visibility.PUBLIC, Visibility.HYBRID})


@dataclass(frozen=True)
class SessionAccess:
    """A session the caller may chat in, and whether the caller is its chatbot's owner."""

    session: ChatSession
    chatbot: Chatbot
    owner_uuid: str | None
    """The owner's account when the caller's key is the owner's; None for a visitor, with or without a key."""


async def chat_session(db: AsyncSession, account_uuid: str | None, session_uuid: str) -> SessionAccess:
    """The session and its chatbot, if the caller (`None`: no key sent) may chat in it."""
    found = await ChatSessionRepository(db).with_chatbot(session_uuid)
    if found is not None:
        session, chatbot = found
        if chatbot.account_uuid == account_uuid:
            return SessionAccess(session, chatbot, account_uuid)
        if chatbot.visibility in OPEN_VISIBILITIES:
            return SessionAccess(session, chatbot, None)
    if account_uuid is None:
        raise unauthorized("Missing API key: send 'Authorization: Bearer <key>' (public and hybrid chatbots need none)")
    raise not_found("Session")
