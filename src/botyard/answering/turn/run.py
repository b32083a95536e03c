"""The streaming part of one answer: retrieve, pass the relevance decision (offline; a model judges for itself), run the
answerer, and turn its deltas into chat events (text, citations as their markers appear, pings while nothing comes);
then finish (`finish.py`)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import Any

import anyio

from botyard import metrics
from botyard.answering.base import Answerer, AnswerEvent, CitedHit, Finished, joined_text
from botyard.answering.routing.supervisor import ChosenAgent
from botyard.answering.search_depth import MODEL_TOP_K, TOP_K
from botyard.answering.tools import Tool
from botyard.answering.turn import decision, finish
from botyard.answering.turn.admission import Slot
from botyard.answering.turn.canned import canned
from botyard.answering.turn.citations import CitedSource, cite_entry, markers_in, number_hits
from botyard.answering.turn.decision import Reply
from botyard.answering.turn.documents import document_hits, merged_hits
from botyard.answering.turn.events import ChatEvent, Citation, Ended, Failed, Ping, Started, with_heartbeat
from botyard.answering.turn.json_guard import json_guard
from botyard.answering.turn.records import Outcome, Prepared, Searched
from botyard.chat import conversation
from botyard.db.session import Database
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import TextDelta, Usage
from botyard.models import MessageKind
from botyard.retrieval.base import Hit, Retrieval
from botyard.retrieval.relevance import Assessment
from botyard.retrieval.retriever import Retriever

log = logging.getLogger(__name__)

FAILURE_MESSAGE = "Sorry, something went wrong while answering. Please try again."
CHECKPOINT_SECONDS = 1.0
"""How often a streaming answer's text so far is saved: what a process killed mid-answer loses at most (the client
may have received that much more). An answer done within it (the offline answerer's) is written once, at the end."""


@dataclass(frozen=True, kw_only=True)
class AnswerParts:
    """The long-lived parts every answer of a process uses, built once (`Runtime`)."""

    database: Database
    retriever: Retriever | None
    answerer: Answerer
    admission: asyncio.Semaphore
    """Bounds the answers that prepare and search at once (`answer_admission`; one `Slot` per answer)."""
    call_tool: Callable[[Tool, dict[str, Any]], Awaitable[str]] | None = None
    greeting: Callable[[ChosenAgent, str], Awaitable[str | None]] | None = None
    """Small talk's friendly reply for a chatbot's only agent when its knowledge has no answer (`AgentRouter`)."""


class AnswerRun:
    """The streaming part of one answer; iterate `stream` once, then always `close()`."""

    def __init__(self, prepared: Prepared, parts: AnswerParts, ping_seconds: float | None, slot: Slot) -> None:
        self.prepared = prepared
        self.slot = slot
        """The admission slot taken before preparation, given back once the search is done (`admission`)."""
        self.parts = parts
        self.ping_seconds = ping_seconds
        self.pieces: list[str] = []
        self.cited: list[CitedHit] = []
        self.sources: dict[str, CitedSource] = {}
        self.finished: Finished | None = None
        self.assessment: Assessment | None = None
        self.searched: Searched | None = None
        self.error: str | None = None
        self.finalised = False
        self.saved_at: float | None = None
        """When the text so far was last saved (`_checkpoint`); None before the first delta."""
        self.started = metrics.request_started() or time.perf_counter()
        self.first_byte: float | None = None
        """Seconds from the request's arrival to the first text (`Message.first_byte_ms`); None before it."""
        self.outcome = Reply.ANSWERED
        """What answered (`decision.Reply`), for the metrics and the stored message."""
        self.stream = self.events()

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    async def _retrieve(self, agent: ChosenAgent) -> Retrieval:
        retriever = self.parts.retriever
        if retriever is None or agent.source_uuids == []:
            return Retrieval(hits=[], relevant=False)
        query = await self.parts.answerer.search_query(self.prepared.query, self.prepared.history, agent.model)
        vector = await retriever.embed_query(query)  # before the transaction: no connection held meanwhile
        self.searched = Searched(query, vector, retriever.embedder.name if retriever.embedder is not None else None)
        async with self.parts.database.transaction(write=False) as db:
            retrieval = await retriever.retrieve(
                db,
                self.prepared.chatbot_uuid,
                query,
                source_uuids=agent.source_uuids,
                top_k=MODEL_TOP_K if self.parts.answerer.model_decides else TOP_K,
                vector=vector,
                strictness=self.prepared.strictness,
                version=self.prepared.knowledge_version,
            )
        if retrieval.relevant and not self.parts.answerer.model_decides:  # the offline answerer quotes by meaning
            found = retrieval
            retrieval = await self.parts.database.read_briefly(lambda db: retriever.with_passages(db, found, vector))
        if retrieval.hits and (retrieval.relevant or self.parts.answerer.model_decides):
            # The index holds each hit's source as of its knowledge version, at least the one this request read:
            # the same rows a second query would return, without the round trip.
            for hit in retrieval.hits:
                cited = CitedSource(hit.source_title, hit.source_file_name, hit.source_type, dict(hit.source_meta))
                self.sources.setdefault(hit.data_source_uuid, cited)
        return retrieval

    async def _answer_events(self) -> AsyncGenerator[AnswerEvent, None]:
        """The answerer's events, or the reply `decision` settles on. A model is always asked, with the best passages
        whatever the relevance decision said: its prompt decides (COMPAT.md)."""
        agent, query = self.prepared.agent, self.prepared.query
        settled = decision.without_search(self.prepared)
        if settled is not None:
            self.slot.release()
            self.outcome, reply = settled
            if self.outcome is Reply.LIVE_CHAT:  # the operator answers, through the live-chat endpoints
                meta = {"kind": MessageKind.LIVE_CHAT_USER}
                yield Finished("stop", Usage(max(1, count_tokens(query)), 0), meta=meta)
                return
            async for event in canned(reply, query):
                yield event
            return
        try:
            retrieval = await self._retrieve(agent) if agent is not None else Retrieval(hits=[], relevant=False)
        finally:
            self.slot.release()
        self.assessment = retrieval.assessment
        with_tools = agent is not None and bool(agent.tools) and self.parts.answerer.uses_tools
        decides = self.parts.answerer.model_decides
        hits, relevant, term_weights = self._with_documents(retrieval)
        self.outcome = decision.after_search(agent, relevant and bool(hits), decides, with_tools)
        if agent is None or self.outcome is Reply.NO_ANSWER:
            greeting = None
            if agent is not None and agent.greets and self.parts.greeting is not None:
                greeting = await self.parts.greeting(agent, query)
            if greeting:
                self.outcome = Reply.CANNED
            async for event in canned(greeting or decision.no_answer_reply(self.prepared), query):
                yield event
            return
        self.cited = number_hits(hits) if relevant or decides else []
        request = decision.answer_request(
            self.prepared,
            agent,
            self.cited,
            term_weights=term_weights,
            unseen_terms=retrieval.unseen_terms,
            weak_evidence=not relevant,
            tools=with_tools,
        )
        request = replace(request, call_tool=self.parts.call_tool)
        async with aclosing(self.parts.answerer.answer(request)) as events:  # type: ignore[type-var]
            async for event in events:
                yield event

    def _with_documents(self, retrieval: Retrieval) -> tuple[list[Hit], bool, dict[str, float]]:
        """The hits to answer from, whether they answer, and the question's term weights. A model reads the session
        documents whole in its prompt; offline, their passages that hold the question compete with the knowledge's
        relevant hits for the quote (`answering.turn.documents`)."""
        if self.parts.answerer.model_decides or not self.prepared.documents:
            return retrieval.hits, retrieval.relevant, retrieval.term_weights
        found, weights = document_hits(self.prepared.documents, self.prepared.query)
        for hit in found:
            self.sources.setdefault(
                hit.data_source_uuid, CitedSource(hit.source_title, hit.source_file_name, hit.source_type, {})
            )
        hits = merged_hits(found, retrieval.hits if retrieval.relevant else [], TOP_K)
        return hits, bool(hits), retrieval.term_weights or weights

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

    async def _produced(self) -> AsyncGenerator[ChatEvent, None]:
        """The answer's text and citations as they come, pings in silences; failures are kept in `error`."""
        announced: set[str] = set()
        produced = with_heartbeat(self._answer_events(), self.ping_seconds, joined_text)
        try:
            async with aclosing(produced) as stream:
                async for event in stream:
                    if event is None:
                        yield Ping()
                    elif isinstance(event, TextDelta):
                        if event.text:
                            if not self.pieces:
                                self.first_byte = self._first_text()
                            self.pieces.append(event.text)
                            yield event
                            await self._checkpoint()
                            for citation in self._new_citations(announced):
                                yield citation
                    else:
                        self.finished, self.error = event, event.error
        except Exception:
            log.exception("answering message %s failed", self.prepared.message_uuid)
            self.error = "answer_failed"

    async def _checkpoint(self) -> None:
        """Save the text so far when `CHECKPOINT_SECONDS` have passed since the start or the last save."""
        now = asyncio.get_running_loop().time()
        if self.saved_at is None:
            self.saved_at = now
        if now - self.saved_at < CHECKPOINT_SECONDS:
            return
        self.saved_at = now
        try:
            text, message = self.text, self.prepared.message_uuid
            await self.parts.database.write_briefly(lambda db: conversation.save_partial(db, message, text))
        except Exception:  # a busy database delays the checkpoint; the answer goes on
            log.warning("could not save the partial answer of message %s", self.prepared.message_uuid, exc_info=True)

    async def events(self) -> AsyncGenerator[ChatEvent, None]:
        prepared = self.prepared
        yield Started(prepared.message_uuid, prepared.session_uuid)
        async with aclosing(self._produced()) as produced:
            async for event in produced:
                yield event
        if self.error is not None:
            if not self.text.strip():
                self.pieces.append(FAILURE_MESSAGE)
                yield TextDelta(FAILURE_MESSAGE)
            yield Failed(self.error)
        guard = json_guard(self.text)
        if guard:
            self.pieces.append(guard)
            yield TextDelta(guard)
        with anyio.CancelScope(shield=True):
            citations = await self._finalise(interrupted=False)
        outcome = self._outcome(interrupted=False)
        confidence = outcome.confidence
        yield Ended(
            prepared.message_uuid,
            outcome.finish_reason,
            citations,
            outcome.usage,
            confidence.value if confidence is not None else None,
        )

    async def close(self) -> None:
        """Store what was produced if `events()` did not get to the end (the client left), then release it."""
        self.slot.release()  # unstreamed, or left before its search ended
        with anyio.CancelScope(shield=True):
            if not self.finalised:
                await self._finalise(interrupted=True)
            await self.stream.aclose()

    def _outcome(self, interrupted: bool) -> Outcome:
        return Outcome(
            prepared=self.prepared,
            text=self.text,
            cited=self.cited,
            sources=self.sources,
            finished=self.finished,
            error=self.error,
            interrupted=interrupted,
            assessment=self.assessment,
            searched=self.searched,
            refused=self.outcome in (Reply.NO_ANSWER, Reply.REFUSED),  # `Message.refused`
            answered=self.outcome is Reply.ANSWERED,  # every other reply set its own outcome
            first_byte_ms=None if self.first_byte is None else round(self.first_byte * 1000),
        )

    def _first_text(self) -> float:  # seconds from the request to the first text, counted in the live metrics
        return metrics.first_chunk(self._answerer, self.outcome, self.started)

    @property
    def _answerer(self) -> str:
        return "llm" if self.parts.answerer.model_decides else "offline"

    async def _finalise(self, *, interrupted: bool) -> dict[str, dict[str, Any]]:
        self.finalised = True
        failed = "failed" if self.error is not None else self.outcome
        metrics.answer_finished(self._answerer, "interrupted" if interrupted else failed)
        return await finish.store(self.parts.database, self._outcome(interrupted))
