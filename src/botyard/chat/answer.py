"""One answer, from the stored query to the finalised message: the persistence contract of the chat flow.

1. `prepare` (committed before any byte is streamed): authorise, rate limit,
   store the query as a message in state `streaming`, choose the agent, read the history.
2. `AnswerRun.events` (while the response streams): retrieve, pass the relevance gate, run the answerer, and turn
   its deltas into chat events (text, citations as their markers appear, pings while nothing comes).
3. Finalise in a shielded step (cancellation cannot interrupt it): the response text, `finish_reason`,
   `cite_data_json` and `meta_json`, state `complete`. On the normal path this happens before the last event, so
   the response closes only after the commit; a client that disconnects gets `AnswerRun.close`, which stores the
   partial text marked `interrupted` in `meta_json`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Collection
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import anyio
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.answering import variables
from botyard.answering.base import Answerer, AnswerEvent, AnswerRequest, CitedHit, Delta, Finished, Turn, Usage
from botyard.answering.citations import CitedSource, cite_data, cite_entry, markers_in, number_hits
from botyard.answering.supervisor import AgentRouter, ChosenAgent, enabled_agents
from botyard.answering.text import word_groups
from botyard.answering.tools import Tool
from botyard.chat import access, ratelimit
from botyard.chat.events import ChatEvent, Citation, Ended, Failed, Ping, Started, Text, with_heartbeat
from botyard.chat.json_guard import json_guard
from botyard.chat.repository import MessageRepository
from botyard.chat.sweep import stream_owner
from botyard.chat.tagging import schedule_tagging
from botyard.db.base import utcnow
from botyard.db.session import Database
from botyard.embedding import Vectors
from botyard.errors import not_found
from botyard.ingestion.tokens import count_tokens
from botyard.live import service as live
from botyard.models import ChatSession, Message
from botyard.retrieval.base import Retrieval
from botyard.sources.repository import DataSourceRepository

log = logging.getLogger(__name__)

HISTORY_TURNS = 6
TOP_K = 8
FAILURE_MESSAGE = "Sorry, something went wrong while answering. Please try again."


class Retriever(Protocol):
    async def retrieve(
        self,
        db: AsyncSession,
        chatbot_uuid: str,
        query: str,
        *,
        source_uuids: Collection[str] | None = None,
        top_k: int = 8,
        vector: Vectors | None = None,
    ) -> Retrieval: ...

    async def embed_query(self, query: str) -> Vectors | None: ...


@dataclass(frozen=True)
class Prepared:
    """Everything the streaming part needs, copied out of the request's transaction."""

    message_uuid: str
    session_uuid: str
    chatbot_uuid: str
    query: str
    history: list[Turn]
    show_citations: bool
    agent: ChosenAgent | None
    live_chat: bool = False
    """An operator has the session: the query is stored for them, nobody else answers."""
    monitored: list[str] = field(default_factory=list)
    """Phrases that, in the AI's reply, flag the session for operators."""
    background: bool = False
    """Background agents have work after the answer: it queues a `tag_session` job."""


async def prepare(
    database: Database,
    router: AgentRouter,
    account_uuid: str | None,
    session_uuid: str,
    query: str,
    now: datetime,
    *,
    tools: bool = False,
    device: str | None = None,
) -> Prepared:
    """Authorise, choose the agent, count against the rate limit and store the query in state `streaming`,
    committed before the answer starts. Raises before anything is stored when the caller may not chat here or is
    over the limit.

    Two transactions: the reads (session, chatbot, history, agents) take no write lock, and the agent is chosen
    between them (it may embed the query); the write transaction holds only the rate-limit count, the insert and,
    for a human hand-off, the session's flag, which must be atomic together. SQLite has one writer at a time, and
    several server processes meet at its lock, so the shorter the write, the more answers per second.

    `device` is who the rate limit counts (the widget's browser); API traffic counts per session.
    """
    async with database.transaction(write=False) as db:
        session, chatbot = await access.chat_session(db, account_uuid, session_uuid)
        turns = await MessageRepository(db).recent_finished(session.uuid, HISTORY_TURNS)
        roster = await enabled_agents(db, chatbot.uuid, tools=tools)
    history = [Turn(m.query, m.response) for m in turns if m.query]  # not the operator's rows
    live_chat, flagged = live.is_live(session), live.is_flagged(session)
    declared = [variable for card in roster.cards for variable in card.variables if isinstance(variable, dict)]
    filled = {} if live_chat or not declared else await _fill(router, declared, query)
    values = {**_variables(session), **filled}
    agent = None if live_chat else await router.choose(roster.cards, query, _last_agent(turns), values)
    try:
        async with database.transaction() as db:
            await ratelimit.admit(db, chatbot, device or ratelimit.session_device(session.uuid), now)
            meta: dict[str, Any] = {"streaming_owner": stream_owner()}
            message = await MessageRepository(db).add(
                Message(
                    session_uuid=session.uuid,
                    query=query,
                    response="",
                    state="streaming",
                    meta=meta,
                    created_at=now,
                    modified_at=now,
                )
            )
            if filled:
                await _store_variables(db, session.uuid, filled)
            if agent is not None and agent.human_requested:
                await live.flag_for_operators(db, session.uuid, now, reason="asked for a person")
            elif live_chat or flagged:
                await live.record(db, session, live.USER_MESSAGE, now, message_uuid=message.uuid, query=query)
    except IntegrityError as error:  # the session (or its chatbot) was deleted between the two transactions
        raise not_found("Session") from error
    monitored = next((card.monitored for card in roster.cards if card.monitored), [])
    return Prepared(
        message.uuid,
        session.uuid,
        chatbot.uuid,
        query,
        history,
        chatbot.show_citations,
        agent,
        live_chat,
        monitored,
        roster.background,
    )


async def _fill(router: AgentRouter, declared: list[dict[str, Any]], query: str) -> dict[str, str]:
    """The variable values a message gives: the model's reading when a provider is configured, else the patterns."""
    if router.judge is not None and (read := await router.judge.variable_values(declared, query)) is not None:
        return read
    return variables.extract(declared, query)


async def _store_variables(db: AsyncSession, session_uuid: str, filled: dict[str, str]) -> None:
    """Merge the values a message gave into the session's `meta.variables`."""
    session = await db.get(ChatSession, session_uuid)
    if session is not None:
        current = (session.meta or {}).get("variables") or {}
        session.meta = {**(session.meta or {}), "variables": {**current, **filled}}


def _last_agent(turns: list[Message]) -> str | None:
    """The agent that answered the session's previous query (for `stickness`)."""
    answered = [turn for turn in turns if (turn.meta or {}).get("agent_uuid")]
    return str((answered[-1].meta or {})["agent_uuid"]) if answered else None


def _variables(session: ChatSession) -> dict[str, object]:
    variables = (session.meta or {}).get("variables") or {}
    return variables if isinstance(variables, dict) else {}


async def _canned(text: str, query: str, relevant: bool | None = False) -> AsyncIterator[AnswerEvent]:
    """A fixed text streamed as an answer; `relevant` (what the gate said, if it was asked) goes in its meta."""
    for group in word_groups(text):
        yield Delta(group)
    meta = {} if relevant is None else {"relevant": relevant}
    yield Finished("stop", Usage(max(1, count_tokens(query)), max(1, count_tokens(text))), meta=meta)


class AnswerRun:
    """The streaming part of one answer; `events()` once, then always `close()`."""

    def __init__(
        self,
        prepared: Prepared,
        database: Database,
        retriever: Retriever | None,
        answerer: Answerer,
        ping_seconds: float | None,
        admission: asyncio.Semaphore | None = None,
        call_tool: Callable[[Tool, dict[str, Any]], Awaitable[str]] | None = None,
    ) -> None:
        self.prepared = prepared
        self.call_tool = call_tool
        self.admission = admission or asyncio.Semaphore()
        self.database = database
        self.retriever = retriever
        self.answerer = answerer
        self.ping_seconds = ping_seconds
        self.parts: list[str] = []
        self.cited: list[CitedHit] = []
        self.sources: dict[str, CitedSource] = {}
        self.finished: Finished | None = None
        self.error: str | None = None
        self.finalised = False
        self.stream = self.events()

    @property
    def text(self) -> str:
        return "".join(self.parts)

    async def _retrieve(self) -> Retrieval:
        agent = self.prepared.agent
        if agent is None or self.retriever is None or agent.source_uuids == []:
            return Retrieval(hits=[], relevant=False)
        query = await self.answerer.search_query(self.prepared.query, self.prepared.history, agent.model)
        vector = await self.retriever.embed_query(query)  # before the transaction: no connection held meanwhile
        async with self.database.transaction(write=False) as db:
            retrieval = await self.retriever.retrieve(
                db, self.prepared.chatbot_uuid, query, source_uuids=agent.source_uuids, top_k=TOP_K, vector=vector
            )
            if retrieval.relevant and retrieval.hits:
                source_uuids = list(dict.fromkeys(hit.data_source_uuid for hit in retrieval.hits))
                for row in await DataSourceRepository(db).in_chatbot(self.prepared.chatbot_uuid, source_uuids):
                    self.sources[row.uuid] = CitedSource(row.title, row.file_name, row.type, dict(row.meta or {}))
        return retrieval

    async def _answer_events(self) -> AsyncGenerator[AnswerEvent, None]:
        """The answerer's events, or the no-knowledge message when the relevance gate finds nothing."""
        agent = self.prepared.agent
        if self.prepared.live_chat:  # the operator answers, through the live-chat endpoints
            yield Finished("stop", Usage(max(1, count_tokens(self.prepared.query)), 0), meta={"kind": "live_chat_user"})
            return
        if agent is not None and agent.reply is not None:  # pre-canned, spam defense, human hand-off: no search
            async for event in _canned(agent.reply, self.prepared.query, relevant=None):
                yield event
            return
        async with self.admission:
            retrieval = await self._retrieve()
        with_tools = agent is not None and bool(agent.tools) and self.answerer.uses_tools
        if agent is None or (not with_tools and (not retrieval.relevant or not retrieval.hits)):
            no_answer = agent.no_answer_message if agent else ChosenAgent.no_answer_message
            async for event in _canned(no_answer, self.prepared.query):
                yield event
            return
        self.cited = number_hits(retrieval.hits) if retrieval.relevant else []  # a tool agent may answer without
        request = AnswerRequest(
            query=self.prepared.query,
            hits=self.cited,
            history=self.prepared.history,
            show_citations=self.prepared.show_citations,
            agent_prompt=agent.prompt,
            variables=agent.variables,
            model=agent.model,
            temperature=agent.temperature,
            tools=agent.tools if with_tools else [],
            call_tool=self.call_tool,
        )
        async with aclosing(self.answerer.answer(request)) as events:  # type: ignore[type-var]
            async for event in events:
                yield event

    def _new_citations(self, announced: set[str]) -> list[Citation]:
        if not self.prepared.show_citations:
            return []
        by_marker = {item.marker: item for item in self.cited}
        fresh = [marker for marker in markers_in(self.text) if marker in by_marker and marker not in announced]
        announced.update(fresh)
        return [
            Citation(marker, cite_entry(by_marker[marker], self.sources.get(by_marker[marker].hit.data_source_uuid)))
            for marker in fresh
        ]

    async def events(self) -> AsyncGenerator[ChatEvent, None]:
        prepared = self.prepared
        yield Started(prepared.message_uuid, prepared.session_uuid)
        announced: set[str] = set()
        try:
            async with aclosing(with_heartbeat(self._answer_events(), self.ping_seconds)) as stream:
                async for event in stream:
                    if event is None:
                        yield Ping()
                    elif isinstance(event, Delta):
                        if event.text:
                            self.parts.append(event.text)
                            yield Text(event.text)
                            for citation in self._new_citations(announced):
                                yield citation
                    else:
                        self.finished = event
                        self.error = event.error
        except Exception:
            log.exception("answering message %s failed", prepared.message_uuid)
            self.error = "answer_failed"
        if self.error is not None:
            if not self.text.strip():
                self.parts.append(FAILURE_MESSAGE)
                yield Text(FAILURE_MESSAGE)
            yield Failed(self.error)
        guard = json_guard(self.text)
        if guard:
            self.parts.append(guard)
            yield Text(guard)
        with anyio.CancelScope(shield=True):
            citations = await self._finalise(interrupted=False)
        yield Ended(prepared.message_uuid, self._finish_reason(), citations, self._usage())

    async def close(self) -> None:
        """Store what was produced if `events()` did not get to the end (the client left), then release it."""
        with anyio.CancelScope(shield=True):
            if not self.finalised:
                await self._finalise(interrupted=True)
            await self.stream.aclose()

    def _finish_reason(self) -> str:
        return self.finished.finish_reason if self.finished is not None else "stop"

    def _usage(self) -> Usage:
        if self.finished is not None:
            return self.finished.usage
        prompt = [self.prepared.query, *(item.hit.text for item in self.cited)]
        return Usage(max(1, sum(count_tokens(part) for part in prompt)), max(1, count_tokens(self.text)))

    def _meta(self, interrupted: bool) -> dict[str, Any]:
        usage = self._usage()
        meta: dict[str, Any] = {
            "actual_token_distribution": {
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "total_tokens": usage.total_tokens,
            }
        }
        agent = self.prepared.agent
        if agent is not None:
            if agent.uuid:
                meta |= {"agent_uuid": agent.uuid, "agent_name": agent.name, "agent_type": agent.type}
            meta["routing"] = {"forced": agent.forced, "reason": agent.reason}
        if self.finished is not None:
            meta.update({key: value for key, value in self.finished.meta.items() if key not in meta})
        if interrupted:
            meta["interrupted"] = True
        if self.error is not None:
            meta["error"] = self.error
        return meta

    async def _finalise(self, *, interrupted: bool) -> dict[str, dict[str, Any]]:
        self.finalised = True
        text = self.text
        citations = cite_data(text, self.cited, self.sources, show_citations=self.prepared.show_citations)
        values = {
            "response": text,
            "finish_reason": self._finish_reason(),
            "cite_data": citations,
            "meta": self._meta(interrupted),
            "state": "complete",
        }
        phrase = None if self.prepared.live_chat else live.monitored_phrase(text, self.prepared.monitored)
        try:
            async with self.database.transaction() as db:
                await finalise_message(db, self.prepared.message_uuid, values)
                if phrase is not None:
                    await live.flag_for_operators(db, self.prepared.session_uuid, utcnow(), reason=f"said: {phrase}")
                if self.prepared.background and not self.prepared.live_chat:
                    await schedule_tagging(db, self.prepared.session_uuid, self.prepared.chatbot_uuid)
        except Exception:
            log.exception("storing message %s failed", self.prepared.message_uuid)
        return citations


async def finalise_message(db: AsyncSession, message_uuid: str, values: dict[str, Any]) -> None:
    """Write the answer into its message (gone already when its session was deleted meanwhile: nothing to do)."""
    repository = MessageRepository(db)
    message = await repository.session.get(Message, message_uuid)
    if message is not None:
        await repository.update(message, values)
