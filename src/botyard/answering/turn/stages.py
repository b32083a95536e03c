"""The results an answer's stages hand each other, each made once by its stage: `Retrieved` (the search,
`search.py`), `Decided` (what replies, with what), `Streamed` (how the text came out); the one thing that changes
while they run, the answer being written (`Draft`); and the `Outcome` that `finish` stores, built from them.

A stage that was not reached is None: an answer decided without a search has no `Retrieved`, one cut short (the
client left) has no `Streamed` and is stored from its draft as far as it got.
"""

from __future__ import annotations

from dataclasses import dataclass

from botyard.answering.base import AnswerRequest, CitedHit, Finished
from botyard.answering.turn.decision import Reply
from botyard.answering.turn.records import Outcome, Prepared
from botyard.answering.turn.search import Retrieved


@dataclass(frozen=True, kw_only=True)
class Decided:
    """What replies (`decision.Reply`), the numbered hits it may cite (`cited`), and either what the answerer is
    asked (`request`) or the fixed text that replies (`canned`; "" for live chat, where nobody replies) with the
    choices that go with it (`choices`: a pre-canned agent's)."""

    reply: Reply
    cited: list[CitedHit]
    request: AnswerRequest | None = None
    canned: str = ""
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Streamed:
    """How the answer's text came out: the whole text, the answerer's last event (None: it never came), the error
    that ended it (None: none), and seconds from the request to the first text (None: no text came)."""

    text: str
    finished: Finished | None
    error: str | None
    first_byte: float | None


class Draft:
    """The answer while it is written: its text, kept as the pieces that came and joined only when it is read (a
    checkpoint at most once a second, and the end), so that a long answer is not copied once per piece; and what
    the stream learnt on the way. Made `Streamed` once the stream ends (`streamed`)."""

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self.first_byte: float | None = None
        self.finished: Finished | None = None
        self.error: str | None = None

    def add(self, piece: str) -> None:
        self._pieces.append(piece)

    @property
    def begun(self) -> bool:
        """Whether any text came."""
        return bool(self._pieces)

    @property
    def text(self) -> str:
        """The text so far (the pieces, joined once and kept joined)."""
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    def streamed(self) -> Streamed:
        return Streamed(text=self.text, finished=self.finished, error=self.error, first_byte=self.first_byte)


def outcome(
    prepared: Prepared,
    retrieved: Retrieved | None,
    decided: Decided | None,
    streamed: Streamed,
    *,
    interrupted: bool,
) -> Outcome:
    """The answer as `finish.store` writes it, from the stages it reached (an undecided one counts as answered: it
    was on its way to the answerer)."""
    reply = decided.reply if decided is not None else Reply.ANSWERED
    first_byte = streamed.first_byte
    return Outcome(
        prepared=prepared,
        text=streamed.text,
        cited=decided.cited if decided is not None else [],
        sources=dict(retrieved.sources) if retrieved is not None else {},
        finished=streamed.finished,
        error=streamed.error,
        interrupted=interrupted,
        assessment=retrieved.assessment if retrieved is not None else None,
        searched=retrieved.searched if retrieved is not None else None,
        refused=reply in (Reply.NO_ANSWER, Reply.REFUSED),  # `Message.refused`
        answered=reply is Reply.ANSWERED,
        first_byte_ms=None if first_byte is None else round(first_byte * 1000),
    )
