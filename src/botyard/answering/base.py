"""The answerer interface: what an answerer is given, and the events it streams back.

Retrieval happens before the answerer runs. Without a model, the relevance decision decides first whether there is
anything to answer from; with one (`model_decides`), the model is always asked and judges the passages itself.
Citations are numbered before it runs too, so every answerer marks them the same way (`[X.Y]`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from botyard.answering.tools import Tool
from botyard.i18n import DEFAULT, Language
from botyard.llm.provider import TextDelta, Usage
from botyard.retrieval.base import Hit
from botyard.session_documents.budget import AttachedDocument


@dataclass(frozen=True)
class CitedHit:
    """A retrieved chunk with its citation marker: `X.Y` = source number X (1-based, in order of first appearance
    among the hits), chunk number Y within that source."""

    marker: str
    hit: Hit


@dataclass(frozen=True)
class Turn:
    """One earlier exchange of the session, oldest first."""

    query: str
    response: str


@dataclass(frozen=True)
class AnswerRequest:
    query: str
    hits: list[CitedHit]
    """Best first. For a model, whatever retrieval found, whatever the relevance decision said (empty: nothing was
    found at all); offline, only hits of an answerable question (none: the caller answers `no_answer_message`)."""
    history: list[Turn] = field(default_factory=list)
    show_citations: bool = False
    agent_prompt: str = ""
    variables: dict[str, str] = field(default_factory=dict)
    model: str = "gpt-4o-mini-4k"
    """A catalogue name; its `-Nk` suffix is the context budget of the prompt."""
    temperature: float = 0.0
    tools: list[Tool] = field(default_factory=list)
    """The agent's enabled tool functions (the LLM answerer offers them to the model)."""
    call_tool: Callable[[Tool, dict[str, Any]], Awaitable[str]] | None = None
    term_weights: dict[str, float] = field(default_factory=dict)
    """The searched question's content terms with their idf in this chatbot (`Retrieval.term_weights`)."""
    documents: Sequence[AttachedDocument] = ()
    """The session documents the message uses, whole, in the order they joined the conversation."""
    unseen_terms: frozenset[str] = frozenset()
    """Those of `term_weights` that no chunk of the chatbot uses (`Retrieval.unseen_terms`)."""
    language: Language = DEFAULT
    """The language of the reply's own words (the visitor's, `reply_language`): an unsure reply's frame."""
    offers_person: bool = False
    """A human-escalation agent is enabled: an unsure reply offers a person."""
    weak_evidence: bool = False
    """The relevance decision found the passages weak (a model is asked anyway, told they may not cover it)."""


@dataclass(frozen=True)
class Finished:
    """The last event of every answer stream."""

    finish_reason: str
    """`stop` or `length`."""
    usage: Usage
    error: str | None = None
    """Set when the provider failed after the first delta: the text so far is kept, the error goes in `meta_json`."""
    meta: dict[str, Any] = field(default_factory=dict)


AnswerEvent = TextDelta | Finished


class Answerer(Protocol):
    uses_tools: bool
    """Whether `answer` offers the agent's tool functions to a model (the offline answerer cannot)."""
    model_decides: bool
    """Whether a language model judges if the passages answer the question: then it is always asked, with the best
    passages found whatever the relevance decision said, and the agent's prompt says what to do without an answer.
    Offline, the decision decides and nothing answers what it turns down."""

    async def search_query(self, query: str, history: Sequence[Turn], model: str) -> str:
        """What to retrieve with: a follow-up ("and on Sundays?") made to stand on its own using the history."""
        ...

    def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        """Stream the answer: any number of `TextDelta`s, then exactly one `Finished`."""
        ...


def joined_text(first: AnswerEvent, second: AnswerEvent) -> AnswerEvent | None:
    """Two pieces of an answer's text as one (`with_heartbeat`'s `merge`); None for anything else."""
    if isinstance(first, TextDelta) and isinstance(second, TextDelta):
        return TextDelta(first.text + second.text)
    return None
