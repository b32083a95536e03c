"""The answer pipeline behind one entry point, used by the streamed, non-streamed and widget endpoints:

1. `prepare` (committed before any byte is streamed): authorise, route to one agent, rate limit, store the query
   as a message in state `streaming`, read the history (`prepare.py`).
2. `AnswerRun.stream` (while the response streams): retrieve, the relevance decision, the answerer, and turn
   its deltas into chat events (`run.py`).
3. Finish in a shielded step: the response, `finish_reason`, `cite_data_json`, `meta_json`, state `complete`,
   operators' flags and the background agents' job (`finish.py`). On the normal path this happens before the last
   event, so the response closes only after the commit; for a client that disconnects, the run stores the partial
   text marked `interrupted` (however its events end; `AnswerRun.close` for one that never streamed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from botyard.answering.base import Answerer
from botyard.answering.routing.judge import ModelJudge
from botyard.answering.routing.supervisor import AgentRouter
from botyard.answering.turn.admission import Slot
from botyard.answering.turn.parts import AnswerParts
from botyard.answering.turn.prepare import prepare
from botyard.answering.turn.records import Ask
from botyard.answering.turn.run import AnswerRun


class Pipeline:
    """Built once per process; `begin` starts one answer."""

    def __init__(
        self, parts: AnswerParts, router: AgentRouter, *, ping_seconds: float, clock: Callable[[], datetime]
    ) -> None:
        self.parts = parts
        self.router = router
        """The supervisor: which agent answers each query."""
        self.ping_seconds = ping_seconds
        self.clock = clock
        """Now, for the rate limit's window."""

    def follow_model(self, answerer: Answerer, judge: ModelJudge | None) -> None:
        """A changed model connection: the answers that start next use `answerer` (the supervisor follows on its
        own)."""
        self.parts = replace(self.parts, answerer=answerer)

    async def begin(self, ask: Ask, *, events: bool) -> AnswerRun:
        """Prepare the answer (raises before anything is stored when the caller may not chat here or is over the
        limit) and return its run. Pings are for SSE only: the plain-text format has no framing to carry them."""
        slot = await Slot(self.parts.admission).take()  # held through the answer's search (`admission`)
        try:
            prepared = await prepare(
                self.parts.database,
                self.router,
                ask,
                self.clock(),
                tools=self.parts.answerer.uses_tools,
                retriever=self.parts.retriever,
            )
        except BaseException:
            slot.give_back()
            raise
        return AnswerRun(prepared, self.parts, self.ping_seconds if events else None, slot)
