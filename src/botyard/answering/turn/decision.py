"""What to reply, decided before anything streams: the pure part of an answer (`run` streams what it decides).

1. Without searching: live chat (an operator answers; the query is only stored), the documents refusal (the
   attached files do not fit the agent's model), an agent's fixed reply (pre-canned, spam defense, a hand-off).
2. After searching: offline, nothing answerable found is the no-answer reply (or small talk greeted back); anything
   else is answered by the answerer, with what it needs (`answer_request`), and its confidence (`confidence`).
"""

from __future__ import annotations

from enum import StrEnum

from botyard.answering.base import AnswerRequest, CitedHit
from botyard.answering.routing.supervisor import ChosenAgent
from botyard.answering.turn.records import Prepared
from botyard.i18n import DEFAULT, agent_reply, no_answer, reply_language


class Reply(StrEnum):
    """What answers a message; also its `botyard_answers_total` outcome."""

    LIVE_CHAT = "live_chat"
    REFUSED = "refused"
    CANNED = "canned"
    NO_ANSWER = "no_answer"
    ANSWERED = "answered"


def without_search(prepared: Prepared) -> tuple[Reply, str] | None:
    """The reply decided before any search, with its text ("" for live chat), or None: search first."""
    agent = prepared.agent
    if prepared.live_chat:
        return Reply.LIVE_CHAT, ""
    if prepared.refusal is not None:
        return Reply.REFUSED, prepared.refusal
    if agent is not None and agent.reply is not None:
        return Reply.CANNED, _in_visitors_language(agent.reply, agent.type, prepared)
    return None


def canned_choices(prepared: Prepared, reply: Reply) -> tuple[str, ...]:
    """The choices that go with a reply decided before any search: a pre-canned agent's own, with its fixed reply."""
    agent = prepared.agent
    return agent.choices if reply is Reply.CANNED and agent is not None else ()


def _in_visitors_language(reply: str, agent_type: str, prepared: Prepared) -> str:
    """An agent's fixed reply; our own default one (the owner left it as it came) in the visitor's language."""
    if reply != agent_reply(agent_type, DEFAULT):
        return reply
    return agent_reply(agent_type, reply_language(prepared.query, prepared.language)) or reply


def after_search(agent: ChosenAgent | None, answerable: bool, model_decides: bool, with_tools: bool) -> Reply:
    """Whether the answerer answers: a model always does (it judges the passages itself), and so does an agent
    with tools; offline, only when something answerable was found."""
    if agent is None or (not model_decides and not with_tools and not answerable):
        return Reply.NO_ANSWER
    return Reply.ANSWERED


def no_answer_reply(prepared: Prepared) -> str:
    """The agent's own no-answer message, else ours in the question's language, or the chatbot's."""
    agent = prepared.agent
    if agent is not None and agent.no_answer_message is not None:
        return agent.no_answer_message
    return no_answer(reply_language(prepared.query, prepared.language))


def answer_request(
    prepared: Prepared,
    agent: ChosenAgent,
    cited: list[CitedHit],
    *,
    term_weights: dict[str, float],
    unseen_terms: frozenset[str],
    weak_evidence: bool,
    tools: bool,
) -> AnswerRequest:
    """What the answerer is given: the question, the numbered hits, the agent's settings, and what the confidence
    and the reply's frame need (the question's words unknown to the knowledge, the visitor's language)."""
    return AnswerRequest(
        query=prepared.query,
        hits=cited,
        history=prepared.history,
        show_citations=prepared.show_citations,
        agent_prompt=agent.prompt,
        variables=agent.variables,
        model=agent.model,
        temperature=agent.temperature,
        tools=agent.tools if tools else [],
        term_weights=term_weights,
        documents=prepared.documents,
        unseen_terms=unseen_terms,
        language=reply_language(prepared.query, prepared.language),
        offers_person=prepared.offers_person,
        weak_evidence=weak_evidence,
    )
