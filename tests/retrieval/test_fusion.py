"""Fusing BM25 with the models' cosines: each method counts in its own standard deviations, so the decisive one
leads whatever its scale, a model that did not read a chunk gives it no evidence, and every model that reads the
question has a voice."""

from __future__ import annotations

import numpy as np

from botyard.embedding import part_cosines
from botyard.retrieval.fusion import fuse_standardised, order, standardised


def ranking(scores: np.ndarray) -> list[int]:
    rows = np.arange(len(scores), dtype=np.int64)
    return [int(row) for row in order(rows, np.asarray(scores, dtype=np.float32))]


def test_scores_are_counted_in_their_own_deviations() -> None:
    assert np.allclose(standardised(np.array([1.0, 2.0, 3.0])), [-1.2247, 0.0, 1.2247], atol=1e-4)
    assert not np.any(standardised(np.array([0.5, 0.5])))  # a method that tells nothing apart moves nothing
    assert standardised(np.array([])).shape == (0,)


def test_a_decisive_bm25_leads_although_its_scores_are_small() -> None:
    # BM25 on its absolute scale is tiny (a long question's best match reaches a fraction of its largest possible
    # score), but it sets chunk 2 far apart; the cosines barely differ. A 0.7/0.3 weighted sum ranked chunk 0 first.
    bm25 = np.array([0.00, 0.01, 0.12, 0.00], dtype=np.float32)
    cosine = np.array([0.52, 0.50, 0.49, 0.48], dtype=np.float32)
    assert ranking(fuse_standardised(bm25, [cosine]))[0] == 2


def test_a_decisive_model_leads_where_bm25_is_flat() -> None:
    bm25 = np.array([0.10, 0.11, 0.10, 0.12], dtype=np.float32)  # one common word everywhere
    cosine = np.array([0.20, 0.22, 0.61, 0.18], dtype=np.float32)  # the paraphrase
    assert ranking(fuse_standardised(bm25, [cosine]))[0] == 2


def test_a_chunk_a_model_did_not_read_counts_as_its_lowest_cosine() -> None:
    bm25 = np.zeros(3, dtype=np.float32)
    cosine = np.array([0.3, np.nan, 0.5], dtype=np.float32)
    fused = fuse_standardised(bm25, [cosine])
    assert np.isfinite(fused).all() and fused[1] == fused[0] == fused.min()


def test_each_model_that_reads_the_question_votes() -> None:
    rows = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]], dtype=np.float32)
    both = part_cosines(rows, np.array([1.0, 0.0, 1.0, 0.0], dtype=np.float32), (2, 2))
    assert len(both) == 2
    assert np.allclose(both[0], [1.0, 0.0, 1.0])
    assert np.allclose(both[1][:2], [0.0, 1.0]) and np.isnan(both[1][2])  # row 2 has no second part
    only_second = part_cosines(rows, np.array([0.0, 0.0, 0.0, 1.0], dtype=np.float32), (2, 2))
    assert len(only_second) == 1 and np.allclose(only_second[0][:2], [1.0, 0.0])
