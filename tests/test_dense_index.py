"""The dense index keeps one matrix per model part: each question is scored by its own model's part, rows without
that part score 0, rows without a vector never hit, and the candidates' whole vectors come back as stored."""

from __future__ import annotations

import numpy as np

from botyard.embedding import encode_vector
from botyard.retrieval.dense import DenseIndex

BOTH = np.array([0.6, 0.8, 0.0, 0.6, 0.8], dtype=np.float32)
SECOND_ONLY = np.array([0.0, 0.0, 1.0, 0.0, 0.0], dtype=np.float32)
OTHER_SIZE = np.ones(3, dtype=np.float32)


def index() -> DenseIndex:
    return DenseIndex([encode_vector(BOTH), encode_vector(SECOND_ONLY), None, encode_vector(OTHER_SIZE)], (2, 3))


def test_a_question_is_scored_by_its_own_models_part() -> None:
    dense = index()
    english = np.array([1.0, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)  # the first model read it
    assert np.allclose(dense.scores(english), [0.6, 0.0, -np.inf, -np.inf])
    german = np.array([0.0, 0.0, 0.0, 0.0, 1.0], dtype=np.float32)  # only the second one did
    assert np.allclose(dense.scores(german), [0.8, 0.0, -np.inf, -np.inf])
    assert dense.count == 2


def test_the_candidates_whole_vectors_are_returned_as_stored() -> None:
    rows = index().rows(np.array([1, 0], dtype=np.int64))
    assert rows.shape == (2, 5)
    assert np.allclose(rows, np.vstack([SECOND_ONLY, BOTH]), atol=1e-3)  # float16 storage
