"""Fusing the BM25 and dense rankings into one.

Two families were measured on msmarco-5k (see `bench/retrieval.py` and the README for the table):

- reciprocal rank fusion, `sum 1 / (k + rank)`: needs no score scale, but it throws away how far apart the
  scores are, and its value says nothing about relevance, so a gate would need a second score;
- a weighted sum of scores on absolute scales: the dense cosine as it is, and BM25 divided by the query's largest
  possible BM25 score (`LexicalIndex.max_score`), both in [0, 1] whatever the chatbot.

Measured (nDCG@10 over the 43 judged queries, the same numbers in-process and through `bench/retrieval.py`):
MiniLM alone 0.796, BM25 alone 0.721; RRF 0.798 at best (k=60 plain, 0.803 weighted 0.8/0.2 with k=20); min-max or
z-score normalised sums 0.799-0.801; the weighted sum on absolute scales 0.805 at a dense weight of 0.7. That sum is
the first pass.

The shipped ranking adds one step, dense pseudo-relevance feedback (Rocchio): the query vector is moved towards the
mean of the first pass's best `FEEDBACK_DOCS` chunks, the first pass's candidates get their cosines again with it,
and the weighted sum ranks them once more. It costs a product over those ~200 candidates only, and reached 0.811
(0.809-0.812 for 3-10 documents and feedback weights 0.5-1; 0.808 with a dense weight of 0.75). Whether anything
relevant was found is decided apart, on what the best chunks say about the question (`relevance`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from botyard.embedding import unit_parts

Rows = npt.NDArray[np.int64]
Scores = npt.NDArray[np.float32]


class Method(StrEnum):
    HYBRID = "hybrid"
    BM25 = "bm25"
    DENSE = "dense"


DENSE_WEIGHT = 0.7
"""Weight of the cosine in the hybrid score (BM25 gets the rest); tuned on msmarco-5k (0.800-0.805 from 0.6 to 0.75)."""
FEEDBACK_DOCS = 5
"""First-pass chunks whose mean vector the query moves towards."""
FEEDBACK_WEIGHT = 1.0
"""How far it moves: query + weight * mean of those chunks, normalised again."""
RRF_K = 60
"""The usual constant of reciprocal rank fusion; kept for the measurements (`fuse_rrf`)."""


@dataclass(frozen=True)
class Ranked:
    """Candidate rows, best first, with the fused score and each method's score (NaN where a method has none)."""

    rows: Rows
    score: Scores
    bm25: Scores
    dense: Scores


def order(rows: Rows, score: Scores) -> npt.NDArray[np.intp]:
    """Indices sorting by score descending, ties by row ascending: rows are in content order (`ChatbotIndex`), so
    equal scores rank the same on every run and on both databases."""
    return np.lexsort((rows, -score.astype(np.float64)))


def candidates(*row_sets: Rows) -> Rows:
    """The union of several methods' candidate rows, sorted (deterministic)."""
    return np.unique(np.concatenate([np.asarray(rows, dtype=np.int64) for rows in row_sets]))


def lookup(rows: Rows, known_rows: Rows, known_scores: Scores, missing: float) -> Scores:
    """Scores of `rows` from a (rows, scores) result, `missing` for rows the result does not contain."""
    table = dict(zip(known_rows.tolist(), known_scores.tolist(), strict=True))
    return np.array([table.get(row, missing) for row in rows.tolist()], dtype=np.float32)


def fuse_weighted(bm25: Scores, dense: Scores, dense_weight: float = DENSE_WEIGHT) -> Scores:
    """`dense_weight * cosine + (1 - dense_weight) * normalised BM25`, both on absolute scales.

    A candidate that BM25 did not return (it is beyond BM25's over-fetched list, or shares no term) counts 0 for
    BM25: a slight under-estimate for the first kind, exact for the second and by far the most common.
    """
    # The cosine is not clipped at 0: clipping would make every unrelated chunk tie, and ties would then be broken by
    # uuids, which differ from one database to another. A chunk without a vector (not embedded yet) counts 0.
    cosine = np.where(np.isfinite(dense), dense, 0.0)
    return np.asarray(dense_weight * cosine + (1 - dense_weight) * bm25, dtype=np.float32)


def ranks(rows: Rows, ranked_rows: Rows) -> npt.NDArray[np.float64]:
    """1-based rank of each of `rows` in `ranked_rows` (best first); +inf for rows not in it."""
    position = {row: index + 1 for index, row in enumerate(ranked_rows.tolist())}
    return np.array([position.get(row, np.inf) for row in rows.tolist()], dtype=np.float64)


def fuse_rrf(rows: Rows, bm25_rows: Rows, dense_rows: Rows, k: int = RRF_K) -> Scores:
    """Reciprocal rank fusion of two rankings (best first) for the candidate `rows`."""
    return np.asarray(1.0 / (k + ranks(rows, bm25_rows)) + 1.0 / (k + ranks(rows, dense_rows)), dtype=np.float32)


def feedback_query(
    query: npt.NDArray[np.float32], seeds: npt.NDArray[np.float32], parts: Sequence[int]
) -> npt.NDArray[np.float32]:
    """The query vector moved towards the mean of the seed chunks' vectors (rows of `seeds`), each of its parts (one
    per model, `Embedder.parts`) unit length again. A part the query lacks (a model that does not read it) stays
    empty: the seeds' vectors of that model would otherwise make up a query no model read."""
    query = np.asarray(query, dtype=np.float32)
    moved = query + FEEDBACK_WEIGHT * seeds.mean(axis=0)
    start = 0
    for width in parts:
        if not np.any(query[start : start + width]):
            moved[start : start + width] = 0.0
        start += width
    return unit_parts(moved, parts) if np.any(moved) else query
