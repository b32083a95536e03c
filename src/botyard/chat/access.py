"""Who may chat in a session: the session uuid is a capability for `public` and `hybrid` chatbots.

Widgets and some clients stream without the owner's key, so for those chatbots knowing the session uuid is enough
(any valid key is accepted too). A `private` chatbot's sessions need the owner's key. Without a key, a session that
does not exist and a private one answer the same 401, so the answer says nothing about which uuids exist; with
another account's key they answer the same 404 as everywhere else.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.repository import ChatSessionRepository
from botyard.errors import not_found, unauthorized
from botyard.models import Chatbot, ChatSession, Visibility

OPEN_VISIBILITIES = frozenset({Visibility.PUBLIC, Visibility.HYBRID})


async def chat_session(db: AsyncSession, account_uuid: str | None, session_uuid: str) -> tuple[ChatSession, Chatbot]:
    """The session and its chatbot, if the caller (`None`: no key sent) may chat in it."""
    found = await ChatSessionRepository(db).with_chatbot(session_uuid)
    if found is not None:
        session, chatbot = found
        if chatbot.account_uuid == account_uuid or chatbot.visibility in OPEN_VISIBILITIES:
            return session, chatbot
    if account_uuid is None:
        raise unauthorized("Missing API key: send 'Authorization: Bearer <key>' (public and hybrid chatbots need none)")
    raise not_found("Session")
