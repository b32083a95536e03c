"""What the answer pipeline reads and writes of a conversation: the recent exchanges, the query's message and its
answer, the session's variables and tags. The caller has decided who may touch the session."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.repository import ChatSessionRepository, MessageRepository
from botyard.chat.session_state import store_meta
from botyard.db.base import utcnow
from botyard.models import (
    ChatSession,
    ConversationOutcome,
    Message,
    MessageMeta,
    MessageState,
    OutcomeReason,
    SessionMeta,
)


async def recent_exchanges(db: AsyncSession, session_uuid: str, limit: int) -> list[Message]:
    """The session's last `limit` finished messages, oldest first."""
    return await MessageRepository(db).recent_finished(session_uuid, limit)


async def add_message(db: AsyncSession, message: Message) -> Message:
    """Store the customer's message (a query); the session's last activity moves to its time, and the conversation
    is open again for the team (`ChatSessionRepository.customer_wrote`)."""
    added = await MessageRepository(db).add(message)
    await ChatSessionRepository(db).customer_wrote(added.session_uuid, added.created_at)
    return added


async def finish_message(
    db: AsyncSession,
    session_uuid: str,
    message_uuid: str,
    values: dict[str, Any],
    outcome: tuple[ConversationOutcome, OutcomeReason | None] | None = None,
) -> bool:
    """Write the answer into its message (of the session `session_uuid`), move the session's last activity to the
    answer's time, and its outcome to `outcome` when given; False when the message is gone already (its session was
    deleted meanwhile)."""
    answered_at = utcnow()
    if not await MessageRepository(db).set_values(message_uuid, {**values, "modified_at": answered_at}):
        return False
    sessions = ChatSessionRepository(db)
    if outcome is None:
        await sessions.touch(session_uuid, answered_at)
    else:
        await sessions.answered(session_uuid, answered_at, *outcome)
    return True


async def set_outcome(db: AsyncSession, session_uuid: str, outcome: ConversationOutcome, reason: OutcomeReason) -> None:
    """The conversation's outcome after a verdict or a take-over (`ChatSessionRepository.set_outcome`)."""
    await ChatSessionRepository(db).set_outcome(session_uuid, outcome, reason)


async def save_partial(db: AsyncSession, message_uuid: str, text: str) -> None:
    """Keep the answer streamed so far in its message, which stays `streaming`: a process killed mid-answer loses
    only what came after (the start-up sweep marks the message interrupted, with this text)."""
    await MessageRepository(db).set_values(message_uuid, {"response": text}, state=MessageState.STREAMING)


async def streaming_messages(db: AsyncSession) -> Sequence[Message]:
    """Every message still in state `streaming`, whichever process streams it."""
    return await MessageRepository(db).streaming()


async def update_message(db: AsyncSession, message: Message, values: dict[str, Any]) -> None:
    await MessageRepository(db).update(message, values)


async def add_to_message_meta(db: AsyncSession, message_uuid: str, key: str, items: list[dict[str, str]]) -> None:
    """Append `items` to the list `key` of the message's meta (background agents' calls)."""
    message = await MessageRepository(db).get(message_uuid)
    if message is not None and items:
        meta = MessageMeta.of(message)
        earlier = [dict(item) for item in meta.raw.get(key) or [] if isinstance(item, Mapping)]
        message.meta = meta.with_values(**{key: earlier + items}).dump()


async def set_variables(db: AsyncSession, session_uuid: str, values: Mapping[str, str]) -> None:
    """Merge the values a message gave into the session's variables."""
    session = await ChatSessionRepository(db).get(session_uuid)
    if session is not None:
        store_meta(session, SessionMeta.of(session).with_variables(values))


async def add_tags(db: AsyncSession, session_uuid: str, names: Sequence[str]) -> tuple[ChatSession, list[str]] | None:
    """Assign tags to the session (once each); the session and the tags that were new, None when it is gone."""
    session = await ChatSessionRepository(db).get(session_uuid)
    if session is None:
        return None
    meta = SessionMeta.of(session)
    added = [name for name in dict.fromkeys(names) if name not in meta.tags]
    if added:
        store_meta(session, meta.with_tags(added))
    return session, added
