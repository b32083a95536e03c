"""Background agents: after each answered query a `tag_session` job assigns the session every tag of the
chatbot's enabled background agents whose `criteria` the recent conversation matches. A tag once assigned stays.

The job is queued in the transaction that finalises the answer and runs in the job runner, so it never delays a
reply. With an LLM provider the model judges which criteria the conversation matches. Offline (or when the model
gives no usable answer), a tag matches when one of the user's recent messages is close to the tag's "name:
criteria" (cosine of the bundled embedder's vectors at least `MATCH_THRESHOLD`; without an embedder, when the
message contains every key term of the tag's name). Assigned tags are the session's `meta.tags` (names, in the
order they were assigned).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.roster import enabled_agents
from botyard.answering.background import tools as background_tools
from botyard.answering.base import Answerer, Turn
from botyard.answering.routing.judge import ModelJudge
from botyard.answering.text import key_terms
from botyard.answering.tools import Tool
from botyard.chat import conversation
from botyard.chat import service as chat_service
from botyard.db.base import utcnow
from botyard.embedding import Embedder, similarities
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import TagSession
from botyard.jobs.service import enqueue
from botyard.live import service as live
from botyard.models import AgentMeta, ChatbotEventKind, SessionMeta

RECENT_MESSAGES = 6
MATCH_THRESHOLD = 0.33
"""Measured with the bundled model: a matching message scores 0.37-0.56 against a tag's criteria, an unrelated one
at most 0.24."""


@dataclass(frozen=True)
class TagRule:
    name: str
    criteria: str

    @property
    def profile(self) -> str:
        return f"{self.name}: {self.criteria}" if self.criteria.strip() else self.name


async def schedule_tagging(db: AsyncSession, session_uuid: str, chatbot_uuid: str, message_uuid: str) -> None:
    """Queue the tagging of a session after the answer `message_uuid` (a run is cheap and idempotent: a tag is
    assigned once). The payload names the message so that it shows the job in `background_pending_tasks`."""
    await enqueue(db, TagSession(session_uuid, message_uuid), chatbot_uuid=chatbot_uuid, max_attempts=3)


class SessionTagger:
    """The job handler for `tag_session`: the background agents' work after an answer. Tags as described above;
    with an answerer that can call functions, also the background agents' tool functions (`background_tools`)."""

    payload_type = TagSession
    timeout_seconds = 120.0

    def __init__(
        self,
        embedder: Embedder | None,
        judge: ModelJudge | None = None,
        answerer: Answerer | None = None,
        call_tool: Callable[[Tool, dict[str, Any]], Awaitable[str]] | None = None,
    ) -> None:
        self.embedder = embedder
        self.judge = judge
        """With an LLM provider the model judges the criteria; the offline matcher is the fallback."""
        self.call_tool = call_tool
        self.answerer = self._caller(answerer)

    def _caller(self, answerer: Answerer | None) -> Answerer | None:
        """The answerer that calls the background agents' functions: one that can call tools, with a tool caller."""
        return answerer if answerer is not None and answerer.uses_tools and self.call_tool is not None else None

    def follow_model(self, answerer: Answerer, judge: ModelJudge | None) -> None:
        """A changed model connection: the sessions tagged next are judged by `judge` and call functions with
        `answerer` (when it can)."""
        self.judge = judge
        self.answerer = self._caller(answerer)

    async def run(self, ctx: JobContext[TagSession]) -> None:
        session_uuid = ctx.payload.session_uuid
        loaded = await ctx.read(lambda db: _load(db, session_uuid, with_tools=self.answerer is not None))
        if loaded is None:  # the session was deleted meanwhile
            return
        pending = [rule for rule in loaded.rules if rule.name not in loaded.assigned]
        queries = [turn.query for turn in loaded.turns]
        matched = await self._matching(pending, queries) if pending and queries else []
        calls: list[dict[str, str]] = []
        if self.answerer is not None and self.call_tool is not None:
            for agent in loaded.agents:
                calls += await background_tools.run_tools(self.answerer, self.call_tool, agent, loaded.turns)
        if not matched and not calls:
            return

        async def store(db: AsyncSession) -> None:
            if matched:
                await _assign(db, session_uuid, [rule.name for rule in matched])
            if calls and loaded.last_message is not None:
                await background_tools.record_calls(db, loaded.last_message, calls)

        await ctx.finish(store)

    async def give_up(self, session: AsyncSession, payload: TagSession, reason: str) -> None:
        """Nothing to record: a session simply stays without the tags this run would have added."""

    async def _matching(self, rules: list[TagRule], queries: list[str]) -> list[TagRule]:
        if self.judge is not None:
            names = await self.judge.matching_tags(queries, {rule.name: rule.criteria for rule in rules})
            if names is not None:
                return [rule for rule in rules if rule.name in names]
        if self.embedder is None:
            said = set().union(*(key_terms(query) for query in queries))
            return [rule for rule in rules if key_terms(rule.name) and key_terms(rule.name) <= said]
        profiles = np.asarray(await self.embedder.embed_documents([rule.profile for rule in rules]))
        messages = np.asarray(await self.embedder.embed_documents(queries))
        closeness = similarities(profiles, messages, self.embedder.parts).max(axis=1)
        return [rule for rule, score in zip(rules, closeness, strict=True) if score >= MATCH_THRESHOLD]


@dataclass(frozen=True)
class Loaded:
    assigned: list[str]
    rules: list[TagRule]
    turns: list[Turn]
    """The recent exchanges with a user message (not the operator's rows), oldest first."""
    last_message: str | None
    agents: list[background_tools.BackgroundAgent]


async def _load(db: AsyncSession, session_uuid: str, *, with_tools: bool) -> Loaded | None:
    """What the background agents work from: the session's assigned tags, the tag rules of its chatbot's enabled
    background agents, its recent exchanges, and (`with_tools`) the background agents that have functions."""
    session = await chat_service.get_session(db, session_uuid)
    if session is None:
        return None
    rules: dict[str, TagRule] = {}
    agents = (await enabled_agents(db, session.chatbot_uuid)).background
    for tag in (tag for agent in agents for tag in AgentMeta.of(agent).tags):
        if tag.name and tag.name not in rules:
            rules[tag.name] = TagRule(tag.name, tag.criteria)
    exchanges = await conversation.recent_exchanges(db, session_uuid, RECENT_MESSAGES)
    recent = [message for message in exchanges if message.query.strip()]
    callers = await background_tools.background_agents(db, agents) if with_tools else []
    turns = [Turn(message.query, message.response) for message in recent]
    last = recent[-1].uuid if recent else None
    return Loaded(SessionMeta.of(session).tags, list(rules.values()), turns, last, callers)


async def _assign(db: AsyncSession, session_uuid: str, names: list[str]) -> None:
    assigned = await conversation.add_tags(db, session_uuid, names)
    if assigned is not None and assigned[1]:
        session, added = assigned
        await live.record(db, session, ChatbotEventKind.TAGS_ASSIGNED, utcnow(), tags=added)
