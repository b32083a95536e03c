"""BM25's numbers for every backend (`retrieval.bm25`, `retrieval.query_terms`): the formulas give tantivy's own
scores, and a question read over bare term counts (as a backend that keeps them in its database would) weighs, bounds
and resolves exactly as the embedded backend's tantivy index does."""

from __future__ import annotations

from collections import Counter

import pytest

from botyard.retrieval import bm25
from botyard.retrieval.embedded.lexical import Document, LexicalIndex
from botyard.retrieval.language import analyzer, segment
from botyard.retrieval.query_terms import QueryTerms
from botyard.retrieval.spelling import Speller

TEXTS = [
    "red bike red wheel",
    "blue bike",
    "a long text about red paint and a red door and the red car",
    "green tea",
    "bike shop open on Sunday",
]
QUERIES = ["red bike", "bike", "red door", "what is this?", "Whose bikke vanished?", "greentea", "purple", ""]


def index_of(texts: list[str]) -> LexicalIndex:
    return LexicalIndex([Document(row, "source", text) for row, text in enumerate(texts)])


def test_term_score_and_idf_give_tantivys_scores() -> None:
    index = index_of(TEXTS)
    analysed = [analyzer("en").analyze(segment(text)) for text in TEXTS]
    frequencies = Counter(term for terms in analysed for term in set(terms))
    average = sum(map(len, analysed)) / len(analysed)
    for query in ("red bike", "bike", "red door"):
        rows, scores, bound = index.search(query, 10)
        terms = index.terms(query)
        assert bound == pytest.approx(bm25.max_score(len(TEXTS), [frequencies[term] for term in terms]))
        for row, score in zip(rows.tolist(), scores.tolist(), strict=True):
            counts = Counter(analysed[row])
            expected = sum(
                bm25.term_score(bm25.idf(len(TEXTS), frequencies[term]), counts[term], len(analysed[row]), average)
                for term in terms
                if counts[term]
            )
            assert score == pytest.approx(expected, rel=1e-5)


def test_long_documents_are_scored_by_tantivys_kept_length() -> None:
    """tantivy keeps a document's length in a byte (`bm25.fieldnorm`): past 40 terms it scores a rounded-down one."""
    lengths = [3, 40, 41, 47, 59, 61, 100, 333, 1200, 5000]
    texts = [" ".join(["bike", *(f"w{row}x{n}" for n in range(length - 1))]) for row, length in enumerate(lengths)]
    index = index_of(texts)
    rows, scores, _ = index.search("bike", len(texts))
    analysed = [analyzer("en").analyze(segment(text)) for text in texts]
    average = sum(map(len, analysed)) / len(analysed)
    weight = bm25.idf(len(texts), len(texts))
    for row, score in zip(rows.tolist(), scores.tolist(), strict=True):
        kept = bm25.fieldnorm(len(analysed[row]))
        assert score == pytest.approx(bm25.term_score(weight, 1, kept, average), rel=1e-4), lengths[row]
    assert [bm25.fieldnorm(length) for length in lengths] == [3, 40, 40, 46, 56, 60, 96, 312, 1176, 4632]
    assert bm25.fieldnorm(0) == 0 and len(bm25.FIELDNORMS) == 256


def test_the_bound_is_each_terms_idf_at_full_saturation() -> None:
    assert bm25.max_score(10, []) == 0.0
    assert bm25.max_score(10, [0, 3]) == bm25.idf(10, 0) * (bm25.K1 + 1) + bm25.idf(10, 3) * (bm25.K1 + 1)
    assert bm25.idf(10, 0) > bm25.idf(10, 3) > bm25.idf(10, 10) > 0


def test_a_question_over_bare_term_counts_reads_as_over_the_tantivy_index() -> None:
    index = index_of(TEXTS)
    frequencies = Counter(term for text in TEXTS for term in index.terms_in(text))
    bare = QueryTerms(
        lambda term: frequencies.get(term, 0), len(TEXTS), Speller(frequencies), index.languages, index.language
    )
    for query in QUERIES:
        assert bare.terms(query) == index.terms(query)
        assert bare.weights(query) == index.weights(query)
        assert bare.unseen(bare.terms(query)) == index.unseen(index.terms(query))
        assert bare.max_score(bare.terms(query)) == index.max_score(index.terms(query))
