"""Which answers leave a question unanswered, for the owner's list (`botyard.unanswered`): decided from what the
answer already knows, and written in its own final transaction (`finish.store`), so the hot path pays no extra
round trip.

- `refused`: offline, the relevance decision found no passage that answers, and the user got the no-answer reply;
- `model_no_answer`: a model's reply says the no-answer sentence (the agent's own, ours in the question's language
  or the chatbot's, or the hosted service's English one the default prompt asks for);
- `no_agent`: no enabled agent answers queries;
- `low_confidence`: answered unsure (`meta_json.confidence` `low`), or on evidence a stricter setting would have
  refused (`low_confidence`);
- `handed_off`: a human-escalation agent replied (the visitor asked for a person): the owner sees what made them.

Other canned replies (pre-canned, spam defense), small talk greeted back, a message without a content
word ("hi", "how are you?", which a model answers on no evidence), live chat and failed answers are not recorded:
the first ones are what the owner configured, the others are no question of knowledge.
"""

from __future__ import annotations

from datetime import datetime

from botyard.answering.offline.confidence import Confidence
from botyard.answering.routing.supervisor import NOBODY
from botyard.answering.text import content_words
from botyard.answering.turn.records import Outcome, no_answer_sentences, says_no_answer
from botyard.embedding.base import encode_vector
from botyard.i18n import language_of
from botyard.models import UnansweredQuestion, UnansweredReason
from botyard.retrieval.relevance import REQUIRED, Assessment, Strictness, stricter


def low_confidence(assessment: Assessment, strictness: Strictness) -> bool:
    """Whether an answer stands on evidence below the next stricter setting's level (`relevance.REQUIRED`: loose
    0.3, balanced 0.4, strict 0.55), or below what the decision asked here when that is more. The levels are the
    service's own words for "enough evidence"; a strict chatbot's answers are low-confidence only below its own
    level, which only a model answers past (offline, they are refused)."""
    return assessment.score < max(assessment.required, REQUIRED[stricter(strictness)])


def reason(outcome: Outcome) -> UnansweredReason | None:
    """Why the answer leaves its question unanswered, or None (see the module)."""
    prepared, agent = outcome.prepared, outcome.prepared.agent
    if prepared.live_chat or agent is None or outcome.error is not None or prepared.refusal is not None:
        return None
    if agent.uuid == NOBODY and agent.type == NOBODY:
        return UnansweredReason.NO_AGENT
    if not content_words(prepared.query):  # "hi", "ok", "how are you?": nothing the knowledge could answer
        return None
    if outcome.refused:
        return UnansweredReason.REFUSED
    if agent.human_requested and not outcome.interrupted:
        return UnansweredReason.HANDED_OFF
    if agent.reply is not None or outcome.interrupted or not outcome.answered:
        return None
    if says_no_answer(outcome.text, no_answer_sentences(prepared)):
        return UnansweredReason.MODEL_NO_ANSWER
    if outcome.confidence is Confidence.LOW:
        return UnansweredReason.LOW_CONFIDENCE
    if outcome.assessment is not None and low_confidence(outcome.assessment, prepared.strictness):
        return UnansweredReason.LOW_CONFIDENCE
    return None


def unanswered(outcome: Outcome, now: datetime) -> UnansweredQuestion | None:
    """The row that records the outcome's question for the owner, or None when it was answered."""
    why = reason(outcome)
    if why is None:
        return None
    prepared, searched, assessment = outcome.prepared, outcome.searched, outcome.assessment
    resolved = searched.query if searched is not None and searched.query.strip() != prepared.query.strip() else None
    vector = searched.vector if searched is not None else None
    found = language_of(prepared.query)
    return UnansweredQuestion(
        chatbot_uuid=prepared.chatbot_uuid,
        message_uuid=prepared.message_uuid,
        session_uuid=prepared.session_uuid,
        question=prepared.query,
        resolved=resolved,
        reason=why.value,
        language=found.value if found is not None else None,
        score=assessment.score if assessment is not None else None,
        required=assessment.required if assessment is not None else None,
        vector=encode_vector(vector) if vector is not None else None,
        embedder=searched.embedder if vector is not None and searched is not None else None,
        created_at=now,
    )
