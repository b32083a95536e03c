"""The stream stage of an answer: the items its stages hand on (the search's result, the decision, then the
answerer's events) made chat events as they come: the text, written into the answer's `Draft` and saved every
`CHECKPOINT_SECONDS`; a citation right after the piece of text that completes its marker (`MarkerScanner`); pings
in silences. A failure is kept in the draft and ends the stream with the failure message (`ending`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing
from dataclasses import dataclass

from botyard.answering.base import AnswerEvent, CitedHit, joined_text
from botyard.answering.turn.citations import CitedSource, MarkerScanner, cite_entry
from botyard.answering.turn.decision import Reply
from botyard.answering.turn.events import ChatEvent, Citation, Failed, Ping, with_heartbeat
from botyard.answering.turn.json_guard import json_guard
from botyard.answering.turn.search import Retrieved
from botyard.answering.turn.stages import Decided, Draft
from botyard.chat import conversation
from botyard.db.session import Database
from botyard.llm.provider import TextDelta

log = logging.getLogger(__name__)

FAILURE_MESSAGE = "Sorry, something went wrong while answering. Please try again."
CHECKPOINT_SECONDS = 1.0
"""How often a streaming answer's text so far is saved: what a process killed mid-answer loses at most (the client
may have received that much more). An answer done within it (the offline answerer's) is written once, at the end."""

Item = AnswerEvent | Retrieved | Decided
"""What an answer's stages hand the stream, in order: the search's result (when it searched), the decision, then
the answerer's events."""


def _joined(first: Item, second: Item) -> Item | None:
    """Two pieces of text that follow each other as one (`with_heartbeat`'s `merge`); None for anything else."""
    if isinstance(first, TextDelta) and isinstance(second, TextDelta):
        return joined_text(first, second)
    return None


@dataclass(frozen=True, kw_only=True)
class Stream:
    """How one answer streams: where its checkpoints go, whether it shows citations, how often it pings (None:
    never), and what counts its first text (the seconds from the request, given what replies)."""

    database: Database
    message_uuid: str
    show_citations: bool
    ping_seconds: float | None
    first_text: Callable[[Reply], float]

    async def events(
        self, items: AsyncGenerator[Item, None], draft: Draft
    ) -> AsyncGenerator[ChatEvent | Retrieved | Decided, None]:
        """The chat events of `items` (the stage results passed on as they come), the text written into `draft`;
        a failure is kept in `draft.error`."""
        decided: Decided | None = None
        cited: dict[str, CitedHit] = {}
        sources: Mapping[str, CitedSource] = {}
        markers = MarkerScanner()
        saved_at: float | None = None
        merged = with_heartbeat(items, self.ping_seconds, _joined)
        try:
            async with aclosing(merged) as produced:
                async for item in produced:
                    if item is None:
                        yield Ping()
                    elif isinstance(item, Retrieved | Decided):
                        if isinstance(item, Retrieved):
                            sources = item.sources
                        else:
                            decided, cited = item, {hit.marker: hit for hit in item.cited}
                        yield item
                    elif isinstance(item, TextDelta):
                        if item.text:
                            if not draft.begun:
                                draft.first_byte = self.first_text(decided.reply if decided else Reply.ANSWERED)
                            draft.add(item.text)
                            yield item
                            saved_at = await self._checkpoint(draft, saved_at)
                            for citation in self._citations(markers, item.text, cited, sources):
                                yield citation
                    else:
                        draft.finished, draft.error = item, item.error
        except Exception:
            log.exception("answering message %s failed", self.message_uuid)
            draft.error = "answer_failed"

    def _citations(
        self, markers: MarkerScanner, piece: str, cited: dict[str, CitedHit], sources: Mapping[str, CitedSource]
    ) -> list[Citation]:
        """The citations whose markers `piece` completes, each of a numbered hit (`cited`) and announced once."""
        if not self.show_citations:
            return []
        return [
            Citation(marker, cite_entry(cited[marker], sources.get(cited[marker].hit.data_source_uuid)))
            for marker in markers.feed(piece)
            if marker in cited
        ]

    async def _checkpoint(self, draft: Draft, saved_at: float | None) -> float:
        """Save the text so far when `CHECKPOINT_SECONDS` have passed since the first text or the last save; when
        it was last saved."""
        now = asyncio.get_running_loop().time()
        if saved_at is None or now - saved_at < CHECKPOINT_SECONDS:
            return now if saved_at is None else saved_at
        try:
            async with self.database.brief_write() as db:
                await conversation.save_partial(db, self.message_uuid, draft.text)
        except Exception:  # a busy database delays the checkpoint; the answer goes on
            log.warning("could not save the partial answer of message %s", self.message_uuid, exc_info=True)
        return now


async def ending(draft: Draft) -> AsyncGenerator[ChatEvent, None]:
    """The events that close the text: after a failure, the failure message (when no text came) and the error;
    then whatever keeps the plain body from reading as JSON (`json_guard`). Each is written into `draft` first."""
    if draft.error is not None:
        if not draft.text.strip():
            draft.add(FAILURE_MESSAGE)
            yield TextDelta(FAILURE_MESSAGE)
        yield Failed(draft.error)
    guard = json_guard(draft.text)
    if guard:
        draft.add(guard)
        yield TextDelta(guard)
