"""The relevance decision: whether the best passages found say something about the question.

It replaces one fused score compared with a threshold calibrated on one corpus (msmarco-5k), which refused correct
top hits on small knowledge bases: BM25 normalised by the query's largest possible score is small wherever a
question is worded differently from its answer, whatever the corpus.

A passage (a retrieved chunk) is judged on two things it says about the question, each with a meaning of its own:

- **similarity**: the cosine of the question's and the chunk's vectors (how close they are in meaning); with the
  bundled MiniLM, unrelated texts score about 0-0.2 and texts on one subject 0.4 and more (USE-m3's cosines, for
  the questions MiniLM does not read, are put on the same scale: `embedding.pair`);
- **coverage**: the share of the question's content words, each weighted by how specific it is in this chatbot's
  knowledge (its idf), that the chunk, its heading or its source title contains. A word the knowledge never uses
  weighs the most, so a question about something the knowledge does not name ("botox" for a dental clinic's
  documents) is poorly covered even where its other words match.

The evidence of a chunk is the sum of both; the question is answerable when the best chunk's evidence reaches what
the chatbot's strictness requires, and more than most unrelated questions find in this knowledge (`baseline`: in
thousands of web passages, any question's words and a loosely related passage are somewhere). The default
(balanced) asks for at least 0.4: a chunk with none of the question's words must be clearly on its subject, a chunk
that names everything the question asks about passes at any similarity in a small knowledge base. Without vectors
(no embedder, chunks not embedded yet, or a question the model cannot read) the evidence is the coverage alone.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from enum import StrEnum


class Strictness(StrEnum):
    LOOSE = "loose"
    BALANCED = "balanced"
    STRICT = "strict"


REQUIRED = {Strictness.LOOSE: 0.3, Strictness.BALANCED: 0.4, Strictness.STRICT: 0.55}
"""The evidence each strictness asks of the best chunk (see the module). Balanced: similarity 0.4 alone (clearly
on the subject), or coverage 0.4 alone (the question's most specific words are there)."""

QUANTILE = {Strictness.LOOSE: 0.5, Strictness.BALANCED: 0.75, Strictness.STRICT: 1.0}
"""Which of the unrelated questions' evidence in this knowledge (`baseline`) a question must beat: the median one
(loose), all but the most successful quarter (balanced), every one (strict)."""

JUDGED_HITS = 4
"""Only the best few chunks are judged: the offline answerer quotes from no others."""


class Reason(StrEnum):
    NOTHING_FOUND = "nothing_found"
    """No chunk was retrieved (no knowledge, or none in the agent's sources)."""
    MATCHED = "matched"
    WEAK_MATCH = "weak_match"


@dataclass(frozen=True)
class Evidence:
    similarity: float
    """Cosine of the question and the chunk; 0 without vectors."""
    coverage: float

    @property
    def score(self) -> float:
        return self.similarity + self.coverage


@dataclass(frozen=True)
class Assessment:
    relevant: bool
    reason: Reason
    score: float
    """The best chunk's evidence (similarity + coverage)."""
    required: float
    """The evidence asked for: the strictness's level, or what unrelated questions reach here if that is more."""
    best: int | None = None
    """Index of the best-evidenced hit."""
    evidence: Evidence | None = None

    @property
    def explanation(self) -> str:
        """The decision in one sentence, for hit testing and the playground."""
        if self.evidence is None:
            return "Nothing in the knowledge matched the question."
        verdict = "answerable" if self.relevant else "not answerable"
        return (
            f"Best passage: similarity {self.evidence.similarity:.2f} + coverage of the question's words "
            f"{self.evidence.coverage:.2f} = {self.score:.2f}, {'at least' if self.relevant else 'below'} the "
            f"{self.required:.2f} required here (the strictness, or what unrelated questions reach in this "
            f"knowledge if more): {verdict}."
        )


def stricter(strictness: Strictness) -> Strictness:
    """The next stricter setting (strict is the strictest)."""
    return {Strictness.LOOSE: Strictness.BALANCED}.get(strictness, Strictness.STRICT)


def coverage(weights: Mapping[str, float], terms: Set[str]) -> float:
    """The share of the question's term weight found among `terms` (a passage's index terms)."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(weight for term, weight in weights.items() if term in terms) / total


def unrelated_bar(unrelated: Sequence[float], strictness: Strictness) -> float:
    """The evidence the `QUANTILE` share of the unrelated questions reaches in this knowledge; 0 without any."""
    if not unrelated:
        return 0.0
    ordered = sorted(unrelated)
    if QUANTILE[strictness] >= 1.0:
        return ordered[-1]
    return float(statistics.quantiles(ordered, n=100, method="inclusive")[round(QUANTILE[strictness] * 100) - 1])


def assess(
    evidence: list[Evidence], strictness: Strictness = Strictness.BALANCED, unrelated: Sequence[float] = ()
) -> Assessment:
    """The decision from the evidence of the hits, best-ranked first (only the first `JUDGED_HITS` count), against
    the strictness's own level or, where it is higher, what unrelated questions reach in this knowledge."""
    required = round(max(REQUIRED[strictness], unrelated_bar(unrelated, strictness)), 4)
    judged = evidence[:JUDGED_HITS]
    if not judged:
        return Assessment(False, Reason.NOTHING_FOUND, 0.0, required)
    best = max(range(len(judged)), key=lambda index: (judged[index].score, -index))
    score = judged[best].score
    relevant = score >= required
    reason = Reason.MATCHED if relevant else Reason.WEAK_MATCH
    return Assessment(relevant, reason, round(score, 4), required, best, judged[best])


def similarity(dense: float) -> float:
    """A hit's cosine as evidence: none (NaN, not embedded) counts 0, and a negative cosine no less than 0."""
    return max(dense, 0.0) if math.isfinite(dense) else 0.0
