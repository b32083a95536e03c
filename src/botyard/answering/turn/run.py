"""The streaming part of one answer, as a chain of stages, each handing the next the result it made once:

1. search (`search.py`): what the knowledge holds for the question, unless the reply needs no search;
2. decide: what replies (`decision`), with the numbered hits it may cite and the answerer's request;
3. stream (`stream.py`): the answerer's (or the fixed reply's) events made chat events, the text written into the
   answer's `Draft`;
4. finish (`finish.py`): the `Outcome` built from the stages' results (`stages.outcome`), stored.

The search and the decision run with the answerer, in the task that feeds the stream (`with_heartbeat`), and
reach it as items before the answerer's first event. However the stream ends (completed, the client gone, an
error), `events` finalises the answer once with the stages it reached.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import replace
from typing import Any

import anyio

from botyard import metrics
from botyard.answering.base import AnswerEvent, Finished
from botyard.answering.turn import decision, finish
from botyard.answering.turn.admission import Slot
from botyard.answering.turn.canned import canned
from botyard.answering.turn.citations import number_hits
from botyard.answering.turn.decision import Reply
from botyard.answering.turn.events import ChatEvent, Ended, Started
from botyard.answering.turn.parts import AnswerParts
from botyard.answering.turn.records import Outcome, Prepared
from botyard.answering.turn.search import Retrieved, search
from botyard.answering.turn.stages import Decided, Draft, outcome
from botyard.answering.turn.stream import Item, Stream, ending
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import Usage
from botyard.models import MessageKind


class AnswerRun:
    """The streaming part of one answer; iterate `stream` once, then always `close()`."""

    def __init__(self, prepared: Prepared, parts: AnswerParts, ping_seconds: float | None, slot: Slot) -> None:
        self.prepared = prepared
        self.parts = parts
        self.slot = slot
        """The admission slot taken before preparation, given back once the search is done (`admission`)."""
        self.started = metrics.request_started() or time.perf_counter()
        self.draft = Draft()
        """The answer being written: the only part of a run that changes while it streams."""
        self.finalised: Outcome | None = None
        """The outcome as it was stored; None until then."""
        self.stream = self.events(ping_seconds)

    @property
    def text(self) -> str:
        return self.draft.text

    async def events(self, ping_seconds: float | None) -> AsyncGenerator[ChatEvent, None]:
        """The answer's chat events, from `Started` to `Ended` (sent once the message is stored)."""
        prepared = self.prepared
        stream = Stream(
            database=self.parts.database,
            message_uuid=prepared.message_uuid,
            show_citations=prepared.show_citations,
            ping_seconds=ping_seconds,
            first_text=self._first_text,
        )
        retrieved: Retrieved | None = None
        decided: Decided | None = None
        try:
            yield Started(prepared.message_uuid, prepared.session_uuid)
            async with aclosing(stream.events(self._stages(), self.draft)) as items:
                async for item in items:
                    if isinstance(item, Retrieved):
                        retrieved = item
                    elif isinstance(item, Decided):
                        decided = item
                    else:
                        yield item
            async with aclosing(ending(self.draft)) as closing:
                async for event in closing:
                    yield event
            with anyio.CancelScope(shield=True):
                stored = outcome(prepared, retrieved, decided, self.draft.streamed(), interrupted=False)
                citations = await self._finalise(stored, decided)
            confidence = stored.confidence
            yield Ended(
                prepared.message_uuid,
                stored.finish_reason,
                citations,
                stored.usage,
                confidence.value if confidence is not None else None,
            )
        finally:
            if self.finalised is None:  # cut short: the client left, or the stream was closed early
                with anyio.CancelScope(shield=True):
                    cut = outcome(prepared, retrieved, decided, self.draft.streamed(), interrupted=True)
                    await self._finalise(cut, decided)

    async def close(self) -> None:
        """Store what was produced if `events()` did not get to the end (the client left), then release it."""
        self.slot.give_back()  # unstreamed, or left before its search began
        with anyio.CancelScope(shield=True):
            await self.stream.aclose()  # a stream that began stores what it reached (`events`)
            if self.finalised is None:  # it never began
                await self._finalise(outcome(self.prepared, None, None, self.draft.streamed(), interrupted=True), None)

    async def _stages(self) -> AsyncGenerator[Item, None]:
        """Search, decide and reply, each stage's result handed on before the reply's events."""
        settled = decision.without_search(self.prepared)
        retrieved = await self._search(needed=settled is None)
        if retrieved is not None:
            yield retrieved
        if settled is not None:
            decided = Decided(reply=settled[0], cited=[], canned=settled[1])
        else:
            assert retrieved is not None
            decided = await self._decide(retrieved)
        yield decided
        async for event in self._reply(decided):
            yield event

    async def _search(self, *, needed: bool) -> Retrieved | None:
        """The search, or None when the reply needs none. The admission slot is given back here, whichever way
        the search ends (found, needless, failed, cancelled)."""
        try:
            return await search(self.parts, self.prepared) if needed else None
        finally:
            self.slot.give_back()

    async def _decide(self, retrieved: Retrieved) -> Decided:
        """What replies after the search: the no-answer reply (or small talk greeted back), or the answerer, with
        the numbered hits. A model is always asked, with the best passages whatever the relevance decision said:
        its prompt decides (COMPAT.md)."""
        prepared, agent, answerer = self.prepared, self.prepared.agent, self.parts.answerer
        with_tools = agent is not None and bool(agent.tools) and answerer.uses_tools
        answerable = retrieved.relevant and bool(retrieved.hits)
        reply = decision.after_search(agent, answerable, answerer.model_decides, with_tools)
        if agent is None or reply is Reply.NO_ANSWER:
            greeting = None
            if agent is not None and agent.greets and self.parts.greeting is not None:
                greeting = await self.parts.greeting(agent, prepared.query)
            text = greeting or decision.no_answer_reply(prepared)
            return Decided(reply=Reply.CANNED if greeting else Reply.NO_ANSWER, cited=[], canned=text)
        cited = number_hits(retrieved.hits) if retrieved.relevant or answerer.model_decides else []
        request = decision.answer_request(
            prepared,
            agent,
            cited,
            term_weights=retrieved.term_weights,
            unseen_terms=retrieved.retrieval.unseen_terms,
            weak_evidence=not retrieved.relevant,
            tools=with_tools,
        )
        return Decided(reply=reply, cited=cited, request=replace(request, call_tool=self.parts.call_tool))

    async def _reply(self, decided: Decided) -> AsyncGenerator[AnswerEvent, None]:
        """The events of what replies: the answerer's, a fixed text streamed like them, or, in live chat (an
        operator answers, through the live-chat endpoints), only the end."""
        query = self.prepared.query
        if decided.reply is Reply.LIVE_CHAT:
            yield Finished("stop", Usage(max(1, count_tokens(query)), 0), meta={"kind": MessageKind.LIVE_CHAT_USER})
        elif decided.request is None:
            async for event in canned(decided.canned, query):
                yield event
        else:
            async with aclosing(self.parts.answerer.answer(decided.request)) as events:  # type: ignore[type-var]
                async for event in events:
                    yield event

    def _first_text(self, reply: Reply) -> float:  # seconds from the request to the first text, in the live metrics
        return metrics.first_chunk(self._answerer, reply, self.started)

    @property
    def _answerer(self) -> str:
        return "llm" if self.parts.answerer.model_decides else "offline"

    async def _finalise(self, stored: Outcome, decided: Decided | None) -> dict[str, dict[str, Any]]:
        """Count the answer and store it; the citations as stored."""
        self.finalised = stored
        reply = decided.reply if decided is not None else Reply.ANSWERED
        failed = "failed" if stored.error is not None else reply
        metrics.answer_finished(self._answerer, "interrupted" if stored.interrupted else failed)
        return await finish.store(self.parts.database, stored)
