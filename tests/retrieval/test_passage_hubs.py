"""Passages close to every question (an FAQ's short questions) are marked down in quote choice (`baseline`)."""

from __future__ import annotations

import numpy as np
import pytest

from botyard.retrieval.baseline import less_excess_closeness, usual_closeness

PARTS = (2, 2)
"""Two models of two dimensions each, like the bundled pair (MiniLM, USE-m3)."""


def test_usual_closeness_reads_by_the_questions_own_model_at_its_scale() -> None:
    unrelated = [np.array([1.0, 0.0, 0.0, 1.0], dtype=np.float32)]  # both models read it
    german = np.array([0.0, 0.0, 0.0, 1.5], dtype=np.float32)  # the second model's question, lengthened (`pair`)
    hub = np.array([0.0, 1.0, 0.0, 1.0], dtype=np.float32)  # near the unrelated question by the second model only
    prose = np.array([1.0, 0.0, 1.0, 0.0], dtype=np.float32)  # near it by the first model only: not this question's
    assert usual_closeness(np.stack([hub, prose]), german, unrelated, PARTS) == pytest.approx([1.5, 0.0])


def test_usual_closeness_is_zero_without_unrelated_questions() -> None:
    rows = np.eye(4, dtype=np.float32)
    question = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
    assert usual_closeness(rows, question, [None], PARTS).tolist() == [0.0] * 4


def test_only_the_excess_over_the_median_passage_is_taken_off() -> None:
    cosines = [np.array([0.6, 0.5], dtype=np.float32), np.array([0.4], dtype=np.float32)]
    usual = [np.array([0.25, 0.0], dtype=np.float32), np.array([0.05], dtype=np.float32)]
    # The median passage is 0.05 close to questions in general: the FAQ question (0.25) loses 0.2 and no longer
    # outranks the prose passage that answers; the others keep their cosines.
    corrected = less_excess_closeness(cosines, usual)
    assert corrected[0] == pytest.approx([0.4, 0.5])
    assert corrected[1] == pytest.approx([0.4])
    assert less_excess_closeness(cosines, []) == cosines
