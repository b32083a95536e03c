"""Which agent answers a query: the supervisor. The candidates are loaded inside the request's read transaction
(`agents.roster.enabled_agents`, made into cards by `roster`); `AgentRouter.choose` decides after it (it may embed
the query), by the rules of `routing`.

Pre-canned and spam-defense agents reply with their `default_message`, a human-escalation agent with its
`human_requested_message` (and the session is flagged by the caller); a user-facing agent answers from its sources.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from botyard.agents.roster import EnabledAgents
from botyard.agents.rules import DEFAULT_MESSAGES, HUMAN_ESCALATION, PRE_CANNED, SPAM_DEFENSE, USER_FACING
from botyard.answering.base import Answerer
from botyard.answering.routing import variables
from botyard.answering.routing.evidence import Reading, VectorCache, clause_vectors_of, read
from botyard.answering.routing.intents import Intent, clauses
from botyard.answering.routing.judge import ModelJudge
from botyard.answering.routing.rules import (
    SMALL_TALK_WORDS,
    Candidate,
    Decision,
    clearly_asks_for_person,
    decide,
    rated,
    small_talk,
    spam_reason,
)
from botyard.answering.routing.variables import is_static
from botyard.answering.text import words
from botyard.answering.tools import Tool
from botyard.embedding import Embedder, Vectors
from botyard.llm.catalogue import DEFAULT_MODEL
from botyard.models import Agent, AgentMeta, EscalationSettings, ToolFunction

log = logging.getLogger(__name__)

DEFAULT_NO_ANSWER_MESSAGE = "Sorry, I cannot find related information in my reference documents."
"""The hosted service's words (COMPAT.md): `botyard.i18n.no_answer` in English, in other languages its own."""
NOBODY = ""
"""The uuid and type of the `ChosenAgent` of a chatbot with no enabled agent that answers queries."""


@dataclass(frozen=True, kw_only=True)
class ChosenAgent:
    """What answering needs of the agent, copied out of the database session that loaded it."""

    uuid: str
    name: str
    prompt: str
    model: str
    temperature: float
    source_uuids: list[str] | None
    """None: all the chatbot's sources (`use_all_sources`); otherwise only these (possibly none)."""
    no_answer_message: str | None = None
    """The agent's own reply when the knowledge has no answer; None: the chatbot's language's (`reply_language`)."""
    variables: dict[str, str] = field(default_factory=dict)
    type: str = USER_FACING
    reply: str | None = None
    """A fixed reply instead of an answer from the sources (pre-canned, spam-defense, human-escalation)."""
    choices: tuple[str, ...] = ()
    """A pre-canned agent's choices, offered with its reply (stored in the message's meta)."""
    forced: bool = False
    """No choice was made: the only enabled agent, or a spam rule."""
    tools: list[Tool] = field(default_factory=list)
    reason: str = "only agent"
    greets: bool = False
    """The chatbot's only agent, offline: when its knowledge has no answer, small talk gets a friendly reply
    (`AgentRouter.greeting`) rather than the no-answer message. Asked only then, so that answerable questions do
    not pay for reading the intents."""

    @property
    def human_requested(self) -> bool:
        return self.type == HUMAN_ESCALATION


def _variables(card: AgentCard, session_variables: dict[str, object]) -> dict[str, str]:
    """The values of the agent's variables: the session's, over the defaults; a static variable keeps its default."""
    defined = [variable for variable in card.variables if isinstance(variable, dict) and variable.get("name")]
    values = {str(v["name"]): str((v.get("default_value") or {}).get("content", "")) for v in defined}
    values.update({str(name): str(value) for name, value in session_variables.items()})
    values.update(
        {str(v["name"]): str((v.get("default_value") or {}).get("content", "")) for v in defined if is_static(v)}
    )
    return values


@dataclass(frozen=True, kw_only=True)
class AgentCard:
    """An enabled routed agent, copied out of the transaction that loaded it."""

    uuid: str
    name: str
    type: str
    description: str
    prompt: str
    meta: AgentMeta
    variables: list[Any]
    escalation: EscalationSettings
    source_uuids: list[str] | None
    tools: list[Tool] = field(default_factory=list)

    @property
    def monitored(self) -> list[str]:
        """A human-escalation agent's `monitored_messages` (phrases that flag a session when an AI reply says them)."""
        return self.escalation.monitored_messages if self.type == HUMAN_ESCALATION else []


@dataclass(frozen=True)
class Roster:
    cards: list[AgentCard]
    """The enabled agents that can answer a query, oldest first."""
    background: bool
    """An enabled background agent has work after each answer: tags to assign, or (with `tools`) enabled functions
    to call. Without any, no `tag_session` job is queued (with a model it would cost a second call per answer)."""


def roster(enabled: EnabledAgents, *, tools: bool = False) -> Roster:
    """The enabled agents as routing and tagging need them; with `tools`, the user-facing agents' tool functions."""
    background = any(
        AgentMeta.of(agent).tags or (tools and enabled.functions.get(agent.uuid)) for agent in enabled.background
    )
    return Roster([_card(agent, enabled) for agent in enabled.routed], background)


def _card(agent: Agent, enabled: EnabledAgents) -> AgentCard:
    return AgentCard(
        uuid=agent.uuid,
        name=agent.name,
        type=agent.type,
        description=agent.description or "",
        prompt=agent.prompt,
        meta=AgentMeta.of(agent),
        variables=list(agent.variables or []),
        escalation=EscalationSettings.of(agent.human_escalation_settings),
        source_uuids=enabled.sources.get(agent.uuid, []) if _own_sources(agent) else None,
        tools=[tool_of(function) for function in enabled.functions.get(agent.uuid, [])],
    )


def _own_sources(agent: Agent) -> bool:
    return agent.type == USER_FACING and not agent.use_all_sources


def tool_of(function: ToolFunction) -> Tool:
    """A stored tool function as the answerer uses it."""
    headers = {str(name): str(value) for name, value in (function.headers or {}).items()}
    return Tool(
        function.name,
        function.description,
        dict(function.parameters or {}),
        function.external_url,
        function.method or "GET",
        headers,
    )


def _reply(card: AgentCard) -> str | None:
    """The fixed reply of a pre-canned, spam-defense or human-escalation agent (None: the agent answers)."""
    if card.type in DEFAULT_MESSAGES:
        message = card.meta.default_message
        return message if message and message.strip() else DEFAULT_MESSAGES[card.type]
    if card.type == HUMAN_ESCALATION:
        return card.escalation.human_requested_message
    return None


def chosen(
    card: AgentCard, session_variables: dict[str, object], *, forced: bool, reason: str, greets: bool = False
) -> ChosenAgent:
    no_answer = card.meta.no_answer_message
    return ChosenAgent(
        uuid=card.uuid,
        name=card.name,
        prompt=card.prompt,
        model=card.meta.model or DEFAULT_MODEL,
        temperature=card.meta.temperature or 0.0,
        source_uuids=card.source_uuids,
        no_answer_message=no_answer if no_answer and no_answer.strip() else None,
        variables=_variables(card, session_variables),
        type=card.type,
        reply=_reply(card),
        choices=tuple(card.meta.choices) if card.type == PRE_CANNED else (),
        tools=card.tools,
        forced=forced,
        reason=reason,
        greets=greets,
    )


class AgentRouter:
    """Chooses the agent for each query (see `routing`); keeps the vectors of the agents' profiles, which change
    only when an agent's name or description does."""

    def __init__(
        self,
        embedder: Embedder | None,
        no_agent_message: str,
        judge: ModelJudge | None = None,
        embed_query: Callable[[str], Awaitable[Vectors | None]] | None = None,
    ) -> None:
        self.embedder = embedder
        self.embed_query = (embed_query or embedder.embed_query) if embedder is not None else None
        """The retriever's (cached), so that retrieval does not embed the same query again."""
        self.no_agent_message = no_agent_message
        self.judge = judge
        """With an LLM provider the model rates the agents; the vectors are the fallback when it gives no answer."""
        self._cache = VectorCache(embedder) if embedder is not None else None

    def follow_model(self, answerer: Answerer, judge: ModelJudge | None) -> None:
        """A changed model connection: the queries routed next are judged by `judge` (None: by the vectors alone)."""
        self.judge = judge

    async def choose(
        self,
        cards: Sequence[AgentCard],
        query: str,
        previous_uuid: str | None = None,
        session_variables: dict[str, object] | None = None,
    ) -> ChosenAgent:
        """The agent that answers `query`; with no enabled agent able to answer, nobody (`NOBODY`) with the
        configured `no_agent_message` as its reply."""
        variables = session_variables or {}
        if not cards:
            return ChosenAgent(
                uuid=NOBODY,
                name="",
                prompt="",
                model=DEFAULT_MODEL,
                temperature=0.0,
                source_uuids=[],
                type=NOBODY,
                reply=self.no_agent_message,
                forced=True,
                reason="no enabled agent",
            )
        guard = next((card for card in cards if card.type == SPAM_DEFENSE), None)
        if guard is not None and (spam := spam_reason(query)) is not None:
            return chosen(guard, variables, forced=True, reason=f"spam: {spam}")
        agents = [card for card in cards if card.uuid]  # not the built-in hand-off (`answering.turn.built_in`)
        if len(agents) < len(cards):
            if await self._asks_for_person(query, cards):
                return chosen(cards[-1], variables, forced=False, reason=Intent.PERSON)
            cards = agents
        if len(cards) == 1:
            # Offline, the only user-facing agent greets small talk back when its knowledge has no answer.
            only = cards[0]
            greets = self.judge is None and only.type == USER_FACING and self._cache is not None
            return chosen(only, variables, forced=True, reason="only agent", greets=greets)
        candidates = [
            Candidate(
                card.uuid, card.name, card.description, card.meta.bias or 0.0, card.meta.stickness or 0.0, card.type
            )
            for card in cards
        ]
        decision = await self._decide(candidates, query, previous_uuid)
        picked = chosen(cards[decision.index], variables, forced=False, reason=decision.reason)
        return picked if decision.reply is None else replace(picked, reply=decision.reply)

    async def variable_values(self, cards: Sequence[AgentCard], query: str) -> dict[str, str]:
        """The values `query` gives to the variables the agents declare: the model's reading when there is a model
        (and it answers), else the patterns of `variables`; none when no agent declares any."""
        declared = [variable for card in cards for variable in card.variables if isinstance(variable, dict)]
        if not declared:
            return {}
        if self.judge is not None and (read := await self.judge.variable_values(declared, query)) is not None:
            return read
        return variables.extract(declared, query)

    async def greeting(self, agent: ChosenAgent, query: str) -> str | None:
        """A friendly reply when `query` (to `agent`, a chatbot's only agent) is small talk; else None."""
        if not agent.greets or len(words(query)) > SMALL_TALK_WORDS:
            return None
        candidates = [Candidate(agent.uuid, agent.name, "", type=USER_FACING)]
        reading = await self._reading(query, candidates)
        chat = small_talk(candidates, query, reading) if reading is not None else None
        return chat.reply if chat is not None else None

    async def _asks_for_person(self, query: str, cards: Sequence[AgentCard]) -> bool:
        """Whether `query` clearly asks for a person, by the vectors (without them, no: not risked on key terms)."""
        reading = await self._reading(query, [Candidate(c.uuid, c.name, c.description, type=c.type) for c in cards])
        return reading is not None and clearly_asks_for_person(reading)

    async def _decide(self, candidates: Sequence[Candidate], query: str, previous_uuid: str | None) -> Decision:
        """Small talk by the vectors (no need to ask a model); then the model's ratings when there is a model, else
        the offline rules of `routing`."""
        reading = await self._reading(query, candidates)
        if reading is not None and (chat := small_talk(candidates, query, reading)) is not None:
            # With a model, the default agent's model answers the greeting, as its prompt says (COMPAT.md).
            return chat if self.judge is None else replace(chat, reply=None)
        ratings = await self.judge.rate_agents(query, candidates) if self.judge is not None else None
        if ratings is not None:
            return rated(candidates, ratings, previous_uuid)
        return decide(candidates, query, reading, previous_uuid)

    async def _reading(self, query: str, candidates: Sequence[Candidate]) -> Reading | None:
        """What the vectors say about the query (None without an embedder or when it fails: key terms then)."""
        if self.embed_query is None or self._cache is None:
            return None
        try:
            facing = [index for index, c in enumerate(candidates) if c.type == USER_FACING]
            profiles, facets = [c.profile for c in candidates], [c.facets for c in candidates]
            special = len(facing) < len(candidates)  # only the other types' evidence is read per clause
            units = clauses(query) if special else [query]
            # The clauses are embedded while the query is: their model's run takes the query too (`batching`).
            query_vector, clause_vectors = await asyncio.gather(
                self.embed_query(query), clause_vectors_of(self._cache, units)
            )
            if query_vector is None:
                return None
            return await read(self._cache, query_vector, clause_vectors, profiles, facets, facing)
        except Exception:
            log.warning("routing without vectors: the embedder failed", exc_info=True)
            return None
