"""What a search engine answers for one question: the interface between the retriever and its two backends.

The retriever (`retriever`) embeds the question, asks the chatbot's search backend for the ranked hits, and makes
the relevance decision on what it found; a backend ranks. Two implement it, chosen by `BOTYARD_SEARCH`:
`embedded` (an index per chatbot in each process's memory: `embedded/`) and `postgres` (PostgreSQL with pgvector
searches: `postgres/`). Both rank by the same fusion (`fusion`) and give the same evidence (coverage, term weights,
what unrelated questions find), so answers do not change with the backend.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.embedding import Vectors
from botyard.retrieval.base import Hit
from botyard.retrieval.fusion import Method


@dataclass(frozen=True)
class Query:
    """One search: the text, its vector (None: keywords only), the scope and how many hits."""

    text: str
    vector: Vectors | None
    sources: frozenset[str] | None
    """The agent's selection of sources; None: all the chatbot's."""
    top_k: int
    method: Method
    covered: int
    """How many of the best hits get their coverage of the question (the decision judges the first few; hit
    testing shows it for all)."""


@dataclass(frozen=True)
class Found:
    """What a backend found: the hits best first, the method that ranked them, and the relevance decision's
    evidence besides the hits (the question's term weights here, those the knowledge never uses, and the evidence
    unrelated questions find in this chatbot: `baseline`)."""

    hits: list[Hit]
    method: Method
    size: int
    """How many chunks the chatbot has (0: nothing was searched)."""
    term_weights: dict[str, float] = field(default_factory=dict)
    unseen_terms: frozenset[str] = frozenset()
    unrelated: tuple[float, ...] = ()


UnrelatedVectors = Callable[[], Awaitable[list[Vectors | None]]]
"""The unrelated questions' vectors (`baseline`), embedded once per process by the retriever."""


class SearchBackend(Protocol):
    async def search(self, db: AsyncSession, chatbot_uuid: str, query: Query, version: int | None) -> Found | None:
        """The chatbot's best chunks for `query`; None when there is no such chatbot. `version`: the chatbot's
        knowledge version as the caller read it earlier in the request (None: read here)."""
        ...

    async def check(self) -> None:
        """That the backend can serve, at the process's start (`postgres.schema.SearchSetupError` says what to do)."""
        ...

    async def forget(self, db: AsyncSession, chatbot_uuid: str) -> None:
        """Drop what the backend keeps of a chatbot that `db`'s transaction deletes: rows in the database go in
        that transaction (nothing is left if it commits, nothing is lost if it does not); what lies elsewhere (an
        embedded index, its snapshots) is derived from the chunks and rebuilt if the deletion rolls back."""
        ...
