"""The last step of an answer, in a shielded step (cancellation cannot interrupt it): the response text,
`finish_reason`, `cite_data_json` and `meta_json`, state `complete`; the operators' flag when the reply says a
monitored phrase; the background agents' job. A client that disconnected gets its partial text marked
`interrupted`."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.answering.background.tagging import schedule_tagging
from botyard.answering.turn.citations import cite_data
from botyard.answering.turn.gaps import unanswered
from botyard.answering.turn.outcomes import after_answer
from botyard.answering.turn.records import Outcome
from botyard.chat import conversation
from botyard.db.base import utcnow
from botyard.db.session import Database
from botyard.live import service as live
from botyard.models import MessageState
from botyard.unanswered import service as unanswered_questions

log = logging.getLogger(__name__)


async def store(database: Database, outcome: Outcome) -> dict[str, dict[str, Any]]:
    """Write the answer into its message and queue what follows it; the citations as stored."""
    prepared = outcome.prepared
    citations = cite_data(outcome.text, outcome.cited, outcome.sources, show_citations=prepared.show_citations)
    values = {
        "response": outcome.text,
        "finish_reason": outcome.finish_reason,
        "cite_data": citations,
        "meta": outcome.meta(),
        "state": MessageState.COMPLETE,
        "refused": outcome.refused or outcome.error is not None,
        "first_byte_ms": outcome.first_byte_ms,
    }
    phrase = None if prepared.live_chat else live.monitored_phrase(outcome.text, prepared.monitored)
    gap = unanswered(outcome, utcnow())
    decided = after_answer(outcome)

    async def write(db: AsyncSession) -> None:
        stored = await conversation.finish_message(db, prepared.session_uuid, prepared.message_uuid, values, decided)
        if stored and gap is not None:
            await unanswered_questions.record(db, gap)
        if phrase is not None:
            await live.flag_for_operators(db, prepared.session_uuid, utcnow(), f"said: {phrase}", prepared.message_uuid)
        if prepared.background and not prepared.live_chat:
            await schedule_tagging(db, prepared.session_uuid, prepared.chatbot_uuid, prepared.message_uuid)

    try:
        await database.write_briefly(write)
    except Exception:
        log.exception("storing message %s failed", prepared.message_uuid)
    return citations
