"""Fusing the BM25 and dense rankings into one.

BM25 and each model that reads the question (`embedding.part_cosines`: with the bundled pair, MiniLM and USE-m3
for an English question, USE-m3 alone for a German one) have one voice each, and each voice counts in its own
standard deviations over this query's candidates (the union of both methods' lists): `fuse_standardised`. No weight
to tune: a method that sets a few chunks far apart from the rest on this query moves them by many deviations, and a
method whose scores are flat on it (BM25 on a paraphrase, a model on a language it reads poorly) barely reorders
anything. The scales, which differ by model, language and chatbot, no longer matter: the best BM25 score reaches
25-57% of the query's largest possible score depending on the corpus, and the best cosines 0.33-0.81 depending on
the model.

It replaced a weighted sum on absolute scales (0.7 x cosine + 0.3 x BM25 / its largest possible score), tuned on
msmarco-5k with the English MiniLM: there the cosine decided the order whatever BM25 said, and on XQuAD, where BM25
is the better ranker in every language, the sum fell up to 0.13 below BM25 alone. Measured in-process (nDCG@10,
en/de/es/ru/zh/ar XQuAD, msmarco-5k): weighted sum .958/.912/.928/.926/.922/.891/.805; BM25 and the question's own
model standardised .970/.944/.961/.952/.966/.954/.792; reciprocal rank fusion .965/.916/.917/.916/.933/.916/.794;
min-max sums and weightings by each method's confidence on the query did no better. One voice per model reading
the question (shipped) measured through the API (`bench/retrieval.py`): .966/.948/.958/.954/.970/.956/.794, at or
above the better of BM25 and dense alone on every set but xquad-en and msmarco (-0.001, -0.003); on the answer
probes' English knowledge it answered one more question per KB than the own-model-only sum. On msmarco the loss
against the weighted sum (-0.013, paired bootstrap interval -0.031..+0.006 over its 43 judged queries) is within
noise; on every XQuAD set the gain is certain (+0.012 to +0.063).

The shipped ranking adds one step, dense pseudo-relevance feedback (Rocchio): the query vector is moved towards the
mean of the first pass's best `FEEDBACK_DOCS` chunks, the first pass's candidates get their cosines again with it,
and the fused score ranks them once more. It costs a product over those ~200 candidates only (about +0.003 on
msmarco, neutral on XQuAD). Whether anything relevant was found is decided apart, on what the best chunks say about
the question (`relevance`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from botyard.embedding import part_cosines, unit_parts

Rows = npt.NDArray[np.int64]
Scores = npt.NDArray[np.float32]


class Method(StrEnum):
    HYBRID = "hybrid"
    BM25 = "bm25"
    DENSE = "dense"


OVERFETCH = 100
"""Candidates each method contributes to the fusion; far more than any top_k, so fusion can reorder freely."""
FEEDBACK_DOCS = 5
"""First-pass chunks whose mean vector the query moves towards."""
FEEDBACK_WEIGHT = 1.0
"""How far it moves: query + weight * mean of those chunks, normalised again."""


@dataclass(frozen=True)
class Ranked:
    """Candidate rows, best first, with the fused score and each method's score (NaN where a method has none)."""

    rows: Rows
    score: Scores
    bm25: Scores
    dense: Scores


def order(rows: Rows, score: Scores) -> npt.NDArray[np.intp]:
    """Indices sorting by score descending, ties by row ascending (`ChatbotIndex._order` passes each row's rank in
    content order, so equal scores rank the same on every run and on both databases)."""
    return np.lexsort((rows, -score.astype(np.float64)))


def candidates(*row_sets: Rows) -> Rows:
    """The union of several methods' candidate rows, sorted (deterministic)."""
    return np.unique(np.concatenate([np.asarray(rows, dtype=np.int64) for rows in row_sets]))


def lookup(rows: Rows, known_rows: Rows, known_scores: Scores, missing: float) -> Scores:
    """Scores of `rows` from a (rows, scores) result, `missing` for rows the result does not contain."""
    table = dict(zip(known_rows.tolist(), known_scores.tolist(), strict=True))
    return np.array([table.get(row, missing) for row in rows.tolist()], dtype=np.float32)


def standardised(scores: Scores) -> npt.NDArray[np.float64]:
    """Scores in standard deviations from their mean over this query's candidates (all 0 when they are all equal)."""
    values = np.asarray(scores, dtype=np.float64)
    spread = float(values.std()) if len(values) else 0.0
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)


def fuse_standardised(bm25: Scores, voters: Sequence[Scores]) -> Scores:
    """BM25 plus each model's cosine, each in its own standard deviations over the query's candidates (see the
    module): BM25 and every model that reads the question (`part_cosines`) have one voice each.

    A candidate that BM25 did not return (beyond its over-fetched list, or sharing no term) counts 0 for BM25; a
    candidate a model did not read (NaN), or without a vector, counts as that model's lowest cosine here: it is no
    evidence either way.
    """
    total = standardised(bm25)
    for cosine in voters:
        values = np.asarray(cosine, dtype=np.float64)
        finite = np.isfinite(values)
        floor = float(values[finite].min()) if finite.any() else 0.0
        total = total + standardised(np.where(finite, values, floor))
    return np.asarray(total, dtype=np.float32)


def feedback_query(
    query: npt.NDArray[np.float32], seeds: npt.NDArray[np.float32], parts: Sequence[int]
) -> npt.NDArray[np.float32]:
    """The query vector moved towards the mean of the seed chunks' vectors (rows of `seeds`), each of its parts (one
    per model, `Embedder.parts`) unit length again. A part the query lacks (a model that does not read it) stays
    empty: the seeds' vectors of that model would otherwise make up a query no model read."""
    query = unit_parts(np.asarray(query, dtype=np.float32), parts)  # a lengthened part (`pair`) moves as a unit one
    moved = query + FEEDBACK_WEIGHT * seeds.mean(axis=0)
    start = 0
    for width in parts:
        if not np.any(query[start : start + width]):
            moved[start : start + width] = 0.0
        start += width
    return unit_parts(moved, parts) if np.any(moved) else query


def voters(
    gathered: npt.NDArray[np.float32], present: npt.NDArray[np.bool_], vector: Scores, parts: Sequence[int]
) -> list[Scores]:
    """Each model's cosines of the candidates (`gathered`: their whole vectors) with the question, for the models that
    read it (`part_cosines`); NaN for a candidate without a vector (`present` false)."""
    found = part_cosines(gathered, np.asarray(vector, dtype=np.float32), parts)
    for cosine in found:
        cosine[~present] = np.nan
    return found


def hybrid_scores(
    bm25: Scores,
    gathered: npt.NDArray[np.float32],
    present: npt.NDArray[np.bool_],
    vector: Scores,
    parts: Sequence[int],
    ranked: Callable[[Scores], Sequence[int] | npt.NDArray[np.intp]],
) -> Scores:
    """The candidates' hybrid scores, as every backend ranks them: fused once, then again with the question moved
    towards the best `FEEDBACK_DOCS` of the first pass (`feedback_query`). `ranked`: the candidates' positions by a
    score, best first, ties broken as the backend breaks them."""
    score = fuse_standardised(bm25, voters(gathered, present, vector, parts))
    if not len(bm25):
        return score
    seeds = gathered[np.asarray(ranked(score)[:FEEDBACK_DOCS], dtype=np.intp)]
    moved = feedback_query(np.asarray(vector, dtype=np.float32), seeds, parts)
    return fuse_standardised(bm25, voters(gathered, present, moved, parts))
