"""The write transaction of `prepare`, which must be atomic together and holds the write lock only while it writes:
the rate-limit count, the query as a message in state `streaming` with the session documents its answer uses, the
variables it gave (and their webhook), and what the hand-off policy decided (`handoff_policy.carry_out`: the flag for
operators, or the contact form's offer; the event operators follow a session by)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.answering.routing.supervisor import ChosenAgent
from botyard.answering.turn.reading import TurnRead
from botyard.answering.turn.sweep import stream_owner
from botyard.chat import conversation, ratelimit
from botyard.live import handoff_policy
from botyard.live.handoff_policy import Decision
from botyard.models import Message, MessageMeta, MessageState, WebhookEvent
from botyard.outbox import events as webhooks
from botyard.session_documents import service as session_documents


async def store_query(
    db: AsyncSession,
    read: TurnRead,
    query: str,
    handing: Decision[ChosenAgent] | None,
    filled: dict[str, str],
    documents: list[str],
    now: datetime,
) -> Message:
    """Store `query` in the session `read` found; raises the rate limit's 429 (and the transaction writes nothing)
    when the caller is over it now."""
    session = read.session
    await ratelimit.admit(db, read.chatbot, read.windows, now)
    meta = MessageMeta().with_values(streaming_owner=stream_owner())
    message = Message(
        session_uuid=session.uuid,
        query=query,
        response="",
        state=MessageState.STREAMING,
        meta=meta.dump(),
        created_at=now,
        modified_at=now,
    )
    message = await conversation.add_message(db, message)
    if filled:
        await conversation.set_variables(db, session.uuid, filled)
    await session_documents.link(db, message.uuid, documents)
    if filled:
        data = {"session_uuid": session.uuid, "message_uuid": message.uuid, "variables": filled}
        await webhooks.emit(db, session.chatbot_uuid, WebhookEvent.VARIABLES_COLLECTED, data, now)
    await handoff_policy.carry_out(db, handing, session, now, message.uuid, query)
    return message
