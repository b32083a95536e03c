"""The last step of an answer, in a shielded step (cancellation cannot interrupt it): the response text,
`finish_reason`, `cite_data_json` and `meta_json`, state `complete`; the operators' flag when the reply says a
monitored phrase; the background agents' job. A client that disconnected gets its partial text marked
`interrupted`."""

from __future__ import annotations

import logging
from typing import Any

from botyard import metrics
from botyard.answering.background.tagging import schedule_tagging
from botyard.answering.turn.citations import cite_data
from botyard.answering.turn.decision import Reply
from botyard.answering.turn.gaps import unanswered
from botyard.answering.turn.outcomes import after_answer
from botyard.answering.turn.records import Outcome
from botyard.answering.turn.stages import Decided
from botyard.chat import conversation
from botyard.db.base import utcnow
from botyard.db.session import Database
from botyard.live import service as live
from botyard.models import MessageState
from botyard.unanswered import service as unanswered_questions

log = logging.getLogger(__name__)


async def finalise(
    database: Database, outcome: Outcome, decided: Decided | None, answerer: str
) -> dict[str, dict[str, Any]]:
    """Count the answer (by `answerer`, `llm` or `offline`, and what replied) and store it; the citations as
    stored."""
    reply = decided.reply if decided is not None else Reply.ANSWERED
    failed = "failed" if outcome.error is not None else reply
    metrics.answer_finished(answerer, "interrupted" if outcome.interrupted else failed)
    return await store(database, outcome)


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
    gap = unanswered(outcome, utcnow())
    ended = after_answer(outcome)
    phrase = None if prepared.live_chat else live.monitored_phrase(outcome.text, prepared.monitored)

    try:
        async with database.brief_write() as db:
            stored = await conversation.finish_message(db, prepared.session_uuid, prepared.message_uuid, values, ended)
            if stored and gap is not None:
                await unanswered_questions.record(db, gap)
            if phrase is not None:
                reason = f"said: {phrase}"
                await live.flag_for_operators(db, prepared.session_uuid, utcnow(), reason, prepared.message_uuid)
            if prepared.background and not prepared.live_chat:
                await schedule_tagging(db, prepared.session_uuid, prepared.chatbot_uuid, prepared.message_uuid)
    except Exception:
        log.exception("storing message %s failed", prepared.message_uuid)
    return citations
