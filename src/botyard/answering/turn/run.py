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
from typing import Any

import anyio

from botyard import metrics
from botyard.answering.turn import decision, finish, reply
from botyard.answering.turn.admission import Slot
from botyard.answering.turn.decision import Reply
from botyard.answering.turn.events import ChatEvent, Ended, Started
from botyard.answering.turn.parts import AnswerParts
from botyard.answering.turn.records import Outcome, Prepared
from botyard.answering.turn.search import Retrieved, search
from botyard.answering.turn.stages import Decided, Draft, outcome
from botyard.answering.turn.stream import Item, Stream, ending


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
        """Search, decide and reply, each stage's result handed on before the reply's events. The admission slot
        is given back once the search is done, whichever way it ends (found, needless, failed, cancelled)."""
        prepared = self.prepared
        settled = decision.without_search(prepared)
        try:
            retrieved = await search(self.parts, prepared) if settled is None else None
        finally:
            self.slot.give_back()
        if retrieved is not None:
            yield retrieved
        if settled is not None:
            replied, text = settled
            decided = Decided(reply=replied, cited=[], canned=text, choices=decision.canned_choices(prepared, replied))
        else:
            assert retrieved is not None
            decided = await reply.after_search(self.parts, prepared, retrieved)
        yield decided
        async for event in reply.events(self.parts, decided, prepared.query):
            yield event

    def _first_text(self, replied: Reply) -> float:  # seconds from the request to the first text, in the live metrics
        return metrics.first_chunk(self._answerer, replied, self.started)

    @property
    def _answerer(self) -> str:
        return "llm" if self.parts.answerer.model_decides else "offline"

    async def _finalise(self, stored: Outcome, decided: Decided | None) -> dict[str, dict[str, Any]]:
        """Count the answer and store it (`finish.finalise`); the citations as stored. A rehearsal, which stores
        nothing, overrides it."""
        self.finalised = stored
        return await finish.finalise(self.parts.database, stored, decided, self._answerer)
