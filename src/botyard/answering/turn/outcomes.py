"""A conversation's outcome, by rules over what its answers store (no model needed), kept on the session as each
answer is stored (`finish.store`), a verdict is given (`chat.feedback`) or an operator takes over (`live`):

- `handed_off`: a human-escalation agent replied (the visitor asked for a person), or an operator took the
  conversation over. It stays so: a person was involved. The reason is `visitor_asked`, or, right after an
  unresolved answer, that answer's reason (`no_answer`, `unsure`, `failed`): why the visitor wanted a person.
- `unresolved`: the last answer was the no-answer reply (`no_answer`), unsure (`unsure`: a visitor who leaves right
  after a doubtful reply was not helped), or failed (`failed`); or the visitor rated an answer down (`thumbs_down`).
- `resolved`: the last answer was confident (`meta_json.confidence` `high`) or the owner's own canned reply.

A message without a content word ("hi", "thanks", "ok") changes nothing: it is no question. A confident answer
followed by "that's not what I asked" is not resolved: that message's own answer decides, and it is the no-answer
reply or an unsure one. The resolution rate is resolved conversations over those with an outcome
(`analytics`).
"""

from __future__ import annotations

from botyard.answering.offline.confidence import Confidence
from botyard.answering.text import content_words
from botyard.answering.turn.records import Outcome
from botyard.models import ConversationOutcome, OutcomeReason

Decided = tuple[ConversationOutcome, OutcomeReason | None]


def after_answer(outcome: Outcome) -> Decided | None:
    """The conversation's outcome once this answer is stored, or None: it does not change."""
    prepared, agent = outcome.prepared, outcome.prepared.agent
    if prepared.live_chat or outcome.interrupted:
        return None  # an operator answers; or the visitor left mid-answer, before reading it
    if agent is not None and agent.human_requested:
        return ConversationOutcome.HANDED_OFF, OutcomeReason.VISITOR_ASKED
    if outcome.error is not None:
        return ConversationOutcome.UNRESOLVED, OutcomeReason.FAILED
    if not content_words(prepared.query):
        return None
    if outcome.refused:
        return ConversationOutcome.UNRESOLVED, OutcomeReason.NO_ANSWER
    if outcome.confidence is Confidence.LOW:
        return ConversationOutcome.UNRESOLVED, OutcomeReason.UNSURE
    if outcome.confidence is Confidence.NONE:
        return ConversationOutcome.UNRESOLVED, OutcomeReason.NO_ANSWER
    return ConversationOutcome.RESOLVED, None
