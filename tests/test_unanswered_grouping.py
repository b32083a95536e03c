"""The grouping rule on its own (`unanswered.grouping`), with hand-made vectors: equal texts first, then leaders
at a cosine of at least the relevance decision's "on one subject" similarity, never a chain."""

from __future__ import annotations

import numpy as np

from botyard.embedding.base import Vectors
from botyard.retrieval.relevance import REQUIRED, Strictness
from botyard.unanswered.grouping import ON_ONE_SUBJECT, group, normalised


def unit(*values: float) -> Vectors:
    vector = np.array(values, dtype=np.float32)
    return np.asarray(vector / np.linalg.norm(vector), dtype=np.float32)


def at(cosine: float) -> Vectors:
    """A unit vector at `cosine` from (1, 0, 0)."""
    return unit(cosine, float(np.sqrt(1 - cosine**2)), 0.0)


def test_the_threshold_is_the_relevance_decisions_on_one_subject() -> None:
    assert ON_ONE_SUBJECT == REQUIRED[Strictness.BALANCED] == 0.4


def test_equal_texts_group_without_vectors_case_and_punctuation_aside() -> None:
    texts = ["Do you ship?", "do you SHIP", "Where are you?", " Do you  ship?! "]
    assert normalised(texts[3]) == "do you ship"
    assert group(texts, [None] * 4, (3,)) == [[0, 1, 3], [2]]


def test_a_text_joins_its_closest_leader_on_one_subject_and_the_most_asked_leads() -> None:
    texts = ["b", "a", "a", "c", "d"]
    vectors = [at(0.5), unit(1, 0, 0), unit(1, 0, 0), at(0.39), unit(0, 0, 1)]
    assert group(texts, vectors, (3,)) == [[1, 2, 0], [3], [4]]


def test_groups_do_not_chain() -> None:
    """b is on a's subject and c on b's, but c is not on a's: c leads a group of its own."""
    a, b = unit(1, 0, 0), at(0.6)
    c = unit(*(np.cos(1.6) * np.array([1, 0, 0]) + np.sin(1.6) * np.array([0, 1, 0])))  # 1.6 rad from a
    assert float(b @ c) >= ON_ONE_SUBJECT and float(a @ c) < ON_ONE_SUBJECT
    assert group(["a", "a", "b", "c"], [a, a, b, c], (3,)) == [[0, 1, 2], [3]]


def test_a_text_without_a_vector_joins_only_its_equals() -> None:
    a = unit(1, 0, 0)
    assert group(["a", "b", "B!", "c"], [a, None, None, a], (3,)) == [[1, 2], [0, 3]]


def test_two_questions_are_compared_on_their_own_models_scale() -> None:
    """A pair's second model lengthens a question's part by its scale (1.39 for USE-m3) for its cosines with
    passages: two such questions at a cosine of 0.25 would read 0.48 and group. Compared at unit length, they are
    apart, and at 0.45 they join."""
    scale = np.float32(0.57 / 0.41)

    def second(vector: Vectors) -> Vectors:
        return np.asarray(np.concatenate([np.zeros(3, dtype=np.float32), vector * scale]), dtype=np.float32)

    assert group(["a", "b"], [second(unit(1, 0, 0)), second(at(0.25))], (3, 3)) == [[0], [1]]
    assert group(["a", "b"], [second(unit(1, 0, 0)), second(at(0.45))], (3, 3)) == [[0, 1]]
    first = [np.concatenate([unit(1, 0, 0), np.zeros(3)]), np.concatenate([at(0.41), np.zeros(3)])]
    assert group(["a", "b"], first, (3, 3)) == [[0, 1]]  # the first model's unit parts are as they were
