"""The last step of an answer, in a shielded step (cancellation cannot interrupt it): the response text,
`finish_reason`, `cite_data_json` and `meta_json`, state `complete`; the operators' flag when the reply says a
monitored phrase; the background agents' job. A client that disconnected gets its partial text marked
`interrupted`."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.answering.background.tagging import schedule_tagging
from botyard.answering.base import CitedHit, Finished
from botyard.answering.offline.confidence import Confidence
from botyard.answering.turn.citations import CitedSource, cite_data, markers_in
from botyard.answering.turn.gaps import Searched, no_answer_sentences, says_no_answer, unanswered
from botyard.answering.turn.outcomes import after_answer
from botyard.answering.turn.prepare import Prepared
from botyard.chat import conversation
from botyard.db.base import utcnow
from botyard.db.session import Database
from botyard.ingestion.tokens import count_tokens
from botyard.live import service as live
from botyard.llm.provider import Usage
from botyard.models import MessageState
from botyard.retrieval.relevance import Assessment
from botyard.unanswered import service as unanswered_questions

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What an answer produced, as it is stored."""

    prepared: Prepared
    text: str
    cited: list[CitedHit]
    sources: dict[str, CitedSource]
    finished: Finished | None
    error: str | None
    interrupted: bool
    assessment: Assessment | None = None
    """The relevance decision on what was retrieved (none when nothing was searched: a canned reply, live chat)."""
    searched: Searched | None = None
    refused: bool = False
    """The reply is Botyard's refusal (no answer in the knowledge, documents too long): `Message.refused`."""
    answered: bool = False
    """The answerer was asked (not a canned, no-answer or greeting reply)."""
    first_byte_ms: int | None = None
    """Milliseconds from the request's arrival to the first text (`Message.first_byte_ms`); None: no text came."""

    @property
    def confidence(self) -> Confidence | None:
        """How sure the reply is that it answers (`confidence`): the offline answerer's own judgement; for a model's
        answer, the relevance decision's, or its citing a passage when the decision found the evidence weak; none
        for a refusal or the no-answer sentence; high for the owner's canned replies and small talk. None in live
        chat (an operator answers) or after a failure."""
        if self.prepared.live_chat or self.error is not None or self.interrupted:
            return None
        judged = self.finished.meta.get("confidence") if self.finished is not None else None
        if judged is not None:
            return Confidence(judged)
        if self.refused or not self.text.strip():
            return Confidence.NONE
        if not self.answered:  # canned: a pre-canned agent's or a hand-off's words, small talk greeted back
            return Confidence.HIGH
        if says_no_answer(self.text, no_answer_sentences(self.prepared)):
            return Confidence.NONE
        if self.assessment is not None and self.assessment.relevant:
            return Confidence.HIGH
        cites = set(markers_in(self.text)) & {item.marker for item in self.cited}
        return Confidence.HIGH if cites else Confidence.LOW

    @property
    def finish_reason(self) -> str:
        return self.finished.finish_reason if self.finished is not None else "stop"

    @property
    def usage(self) -> Usage:
        if self.finished is not None:
            return self.finished.usage
        prompt = [self.prepared.query, *(item.hit.text for item in self.cited)]
        return Usage(max(1, sum(count_tokens(part) for part in prompt)), max(1, count_tokens(self.text)))

    def meta(self) -> dict[str, Any]:
        """The message's `meta_json`: token counts, the answering agent and why it was chosen, what the answerer
        added, and whether the answer was cut short or failed."""
        meta: dict[str, Any] = {"actual_token_distribution": self.usage.as_dict()}
        agent = self.prepared.agent
        if agent is not None:
            if agent.uuid:
                meta |= {"agent_uuid": agent.uuid, "agent_name": agent.name, "agent_type": agent.type}
            meta["routing"] = {"forced": agent.forced, "reason": agent.reason}
        if self.assessment is not None:
            decision = self.assessment
            meta["relevance"] = {
                "relevant": decision.relevant,
                "reason": decision.reason.value,
                "score": decision.score,
                "required": decision.required,
            }
        if self.finished is not None:
            meta.update({key: value for key, value in self.finished.meta.items() if key not in meta})
        if (confidence := self.confidence) is not None:
            meta["confidence"] = confidence.value
        if self.interrupted:
            meta["interrupted"] = True
        if self.error is not None:
            meta["error"] = self.error
        return meta


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
