"""What the unrelated questions (`baseline.UNRELATED_QUESTIONS`) find in one embedded index: measured once when it
is built, it sets the relevance decision's bar for that chatbot (`baseline` says why)."""

from __future__ import annotations

from collections.abc import Sequence

from botyard.embedding import Vectors
from botyard.retrieval.baseline import UNRELATED_QUESTIONS
from botyard.retrieval.embedded.index import ChatbotIndex, Search
from botyard.retrieval.fusion import Method
from botyard.retrieval.relevance import JUDGED_HITS, coverage, similarity
from botyard.retrieval.terms import lexical_text


def unrelated_evidence(index: ChatbotIndex, vectors: Sequence[Vectors | None]) -> tuple[float, ...]:
    """The best evidence each unrelated question finds in `index` (the questions' vectors in order; None: BM25)."""
    found = []
    for question, vector in zip(UNRELATED_QUESTIONS, vectors, strict=True):
        usable = vector if index.has_vectors else None
        method = Method.HYBRID if usable is not None else Method.BM25
        ranked = index.search(Search(question, usable, None, JUDGED_HITS, method))
        weights = index.lexical.weights(question)
        best = 0.0
        for row_id, dense in zip(ranked.rows.tolist(), ranked.dense.tolist(), strict=True):
            covered = coverage(weights, index.lexical.terms_in(lexical_text(index.rows[row_id]), row_id))
            best = max(best, similarity(dense) + covered)
        found.append(round(best, 4))
    return tuple(found)
