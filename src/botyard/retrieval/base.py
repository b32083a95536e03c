"""What retrieval hands to answering: ranked hits and one decision, whether anything relevant was found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from botyard.retrieval.relevance import Assessment

QUOTED_HITS = 8
"""The best hits the offline answerer quotes from, each with its passages' cosines with the question. More than the
relevance decision judges (`JUDGED_HITS`): whether the knowledge covers the question is decided on the best few, but
the passage that answers it is often in a lower-ranked chunk of the same subject. Quoting from the best 8 rather than
4 answered 4 more of the answer probes' 100 questions (a table row of prices ranked 5th, a warranty period ranked
6th) and lost none: each passage still competes by its own cosine and coverage of the question."""


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk, with what the answerers and citations need."""

    chunk_uuid: str
    data_source_uuid: str
    source_title: str
    source_type: str
    """`qa`, `link` or `upload`: a Q&A hit answers with its answer."""
    heading: str
    text: str
    score: float
    """The fused score the ranking uses (the relevance decision reads `scores` and `coverage`)."""
    scores: dict[str, float] = field(default_factory=dict)
    """Per method (`bm25`, `dense`), for the owners' retrieve endpoint ("hit testing")."""
    source_meta: dict[str, Any] = field(default_factory=dict)
    """The source's `meta_json` (a Q&A pair's question, answer and `reference_source_link`; a page's URL)."""
    tokens: int = 0
    """The o200k count of `text` stored at ingestion; 0 when unknown."""
    passage_similarity: tuple[float, ...] | None = None
    """The cosine of the question with each of the chunk's passages (`botyard.passages.passages(text)`, in order),
    for the best few hits when the model reads the question and the passages have vectors; else None."""
    language: str | None = None
    """The language the index reads the chunk in (`retrieval.language`): the answerer reads its passages so."""
    coverage: float = 0.0
    """The share of the question's weighted words the chunk (with its heading and title) contains (`relevance`)."""
    source_file_name: str = ""
    """The source's file name, for citations (its title, type and meta are above)."""


@dataclass(frozen=True)
class Retrieval:
    hits: list[Hit]
    relevant: bool
    """The relevance decision (`assessment`): without it, the offline answerer says it has no information."""
    method: str = ""
    """Which method ranked the hits (`hybrid`, `bm25`, `dense`); `bm25` when there are no vectors to search, empty
    when nothing was searched."""
    assessment: Assessment | None = None
    """How `relevant` was decided: the score, what it had to reach, and why (hit testing shows it)."""
    term_weights: dict[str, float] = field(default_factory=dict)
    """The question's content terms (as the index analyses them) with their idf in this chatbot."""
    unseen_terms: frozenset[str] = frozenset()
    """Those of `term_weights` that no chunk of the chatbot uses: what the knowledge never names."""
