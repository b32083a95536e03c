"""The records an answer hands from step to step, in one place so that the steps import them and not each other:
the question as it arrives (`Ask`), what `prepare` copied out of its transactions (`Prepared`), what the knowledge was
searched with (`Searched`), and what the answer produced, as `finish` stores it (`Outcome`). The no-answer sentences
live here too: an outcome's confidence reads them, and `gaps` records a model's no-answer by them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from botyard.answering.base import CitedHit, Finished, Turn
from botyard.answering.offline.confidence import Confidence
from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE, ChosenAgent
from botyard.answering.turn.citations import CitedSource, markers_in
from botyard.chat import ratelimit
from botyard.embedding.base import Vectors
from botyard.i18n import DEFAULT, Language, no_answer, reply_language
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import Usage
from botyard.retrieval.relevance import Assessment, Strictness
from botyard.session_documents.budget import AttachedDocument

_NOT_WORD = re.compile(r"[\W_]+")


@dataclass(frozen=True, kw_only=True)
class Ask:
    """One incoming question: who asks (`account_uuid`, None without a key), where, and the caller as a visitor
    (`visitor`: whom the rate limit counts unless the key is the chatbot owner's, whose traffic counts per
    session; `chat.access`)."""

    session_uuid: str
    query: str
    account_uuid: str | None = None
    visitor: ratelimit.Visitor
    document_uuids: tuple[str, ...] = ()
    """Session documents the message attaches (the chatbot owner's, sent with the owner's key)."""


@dataclass(frozen=True, kw_only=True)
class Prepared:
    """Everything the streaming part needs, copied out of the request's transactions."""

    message_uuid: str
    session_uuid: str
    chatbot_uuid: str
    query: str
    history: list[Turn]
    show_citations: bool
    agent: ChosenAgent | None
    strictness: Strictness = Strictness.BALANCED
    """How much evidence the chatbot's relevance decision asks for."""
    language: Language = DEFAULT
    """The language the chatbot speaks (its setting, or its knowledge's): its no-answer reply's, unless the
    question is clearly in another."""
    live_chat: bool = False
    """An operator has the session: the query is stored for them, nobody else answers."""
    monitored: list[str] = field(default_factory=list)
    """Phrases that, in the AI's reply, flag the session for operators."""
    offers_person: bool = False
    """A human-escalation agent is enabled: an unsure reply offers a person."""
    background: bool = False
    """Background agents have work after the answer: it queues a `tag_session` job."""
    documents: list[AttachedDocument] = field(default_factory=list)
    """The session documents the answer uses (linked to the message)."""
    refusal: str | None = None
    """The exact reply when the message's documents do not fit the agent's model: it is the whole answer."""
    knowledge_version: int | None = None
    """The chatbot's knowledge version, read with it: retrieval searches an index at least this new."""


@dataclass(frozen=True)
class Searched:
    """What the answer searched the knowledge with: the query (a follow-up made to stand on its own) and its vector
    (None without one), by the embedder `embedder`."""

    query: str
    vector: Vectors | None
    embedder: str | None


def no_answer_sentences(prepared: Prepared) -> list[str]:
    """The sentences that say there is no answer: the agent's own, ours in the reply's language, the default
    prompt's (the hosted service's)."""
    agent = prepared.agent
    language = reply_language(prepared.query, prepared.language)
    own = agent.no_answer_message if agent is not None else None
    return [own or "", no_answer(language), DEFAULT_NO_ANSWER_MESSAGE]


def _flat(text: str) -> str:
    return _NOT_WORD.sub(" ", text.casefold()).strip()


def says_no_answer(text: str, sentences: list[str]) -> bool:
    """Whether `text` says one of the no-answer `sentences` (case, spacing and punctuation aside)."""
    flat = _flat(text)
    return bool(flat) and any(_flat(sentence) and _flat(sentence) in flat for sentence in sentences)


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
