"""The grouping rule on its own (`unanswered.grouping`), with hand-made vectors: equal texts first, then leaders
at a cosine of at least the relevance decision's "on one subject" similarity, by what was searched and by what was
said, sharing a word in one language; never a chain."""

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


def asked(*names: str) -> list[str]:
    """Questions that share a content word ("parcel"), told apart by `names`."""
    return [f"parcel {name}" for name in names]


def test_the_threshold_is_the_relevance_decisions_on_one_subject() -> None:
    assert ON_ONE_SUBJECT == REQUIRED[Strictness.BALANCED] == 0.4


def test_equal_texts_group_without_vectors_case_and_punctuation_aside() -> None:
    texts = ["Do you ship?", "do you SHIP", "Where are you?", " Do you  ship?! "]
    assert normalised(texts[3]) == "do you ship"
    assert group(texts, [None] * 4, (3,)) == [[0, 1, 3], [2]]


def test_a_text_joins_its_closest_leader_on_one_subject_and_the_most_asked_leads() -> None:
    texts = asked("b", "a", "a", "c", "d")
    vectors = [at(0.5), unit(1, 0, 0), unit(1, 0, 0), at(0.39), unit(0, 0, 1)]
    assert group(texts, vectors, (3,)) == [[1, 2, 0], [3], [4]]


def test_groups_do_not_chain() -> None:
    """b is on a's subject and c on b's, but c is not on a's: c leads a group of its own."""
    a, b = unit(1, 0, 0), at(0.6)
    c = unit(*(np.cos(1.6) * np.array([1, 0, 0]) + np.sin(1.6) * np.array([0, 1, 0])))  # 1.6 rad from a
    assert float(b @ c) >= ON_ONE_SUBJECT and float(a @ c) < ON_ONE_SUBJECT
    assert group(asked("a", "a", "b", "c"), [a, a, b, c], (3,)) == [[0, 1, 2], [3]]


def test_a_text_without_a_vector_joins_only_its_equals() -> None:
    a = unit(1, 0, 0)
    assert group(asked("a", "b", "B!", "c"), [a, None, None, a], (3,)) == [[1, 2], [0, 3]]


def test_two_questions_are_compared_on_their_own_models_scale() -> None:
    """A pair's second model lengthens a question's part by its scale (1.39 for USE-m3) for its cosines with
    passages: two such questions at a cosine of 0.25 would read 0.48 and group. Compared at unit length, they are
    apart, and at 0.45 they join."""
    scale = np.float32(0.57 / 0.41)

    def second(vector: Vectors) -> Vectors:
        return np.asarray(np.concatenate([np.zeros(3, dtype=np.float32), vector * scale]), dtype=np.float32)

    assert group(asked("a", "b"), [second(unit(1, 0, 0)), second(at(0.25))], (3, 3)) == [[0], [1]]
    assert group(asked("a", "b"), [second(unit(1, 0, 0)), second(at(0.45))], (3, 3)) == [[0, 1]]
    first = [np.concatenate([unit(1, 0, 0), np.zeros(3)]), np.concatenate([at(0.41), np.zeros(3)])]
    assert group(asked("a", "b"), first, (3, 3)) == [[0, 1]]  # the first model's unit parts are as they were


def test_words_a_follow_up_borrowed_do_not_carry_it_into_another_questions_group() -> None:
    """ "Can I pay in bitcoin?" after "Do you treat horses?" was searched with the horses' words (0.64 from it, by
    the bundled model); what it said is at 0.13: it leads a group of its own."""
    texts = ["Do you treat horses?", "Can I pay in bitcoin?"]
    searched = [texts[0], "Can I pay in bitcoin? treat horses"]
    own = [None, at(0.13)]
    assert group(texts, [unit(1, 0, 0), at(0.64)], (3,), searched, own) == [[0], [1]]
    also = [texts[0], "And donkeys, do you treat them?"]  # a follow-up of the same question: it joins
    assert group(also, [unit(1, 0, 0), at(0.64)], (3,), [also[0], f"{also[1]} horses"], [None, at(0.7)]) == [[0, 1]]


def test_one_subject_in_one_language_needs_a_shared_word_and_translations_need_none() -> None:
    vectors = [unit(1, 0, 0), at(0.6)]
    assert group(["Do you offer an airport shuttle?", "Do you have a spa?"], vectors, (3,)) == [[0], [1]]
    assert group(["Do you offer an airport shuttle?", "Is the shuttle free?"], vectors, (3,)) == [[0, 1]]
    assert group(["When are you open?", "Wann haben Sie geöffnet?"], vectors, (3,)) == [[0, 1]]


def test_equal_words_searched_as_different_follow_ups_are_two_questions() -> None:
    texts = ["How much is it?", "How much is it?", "How much is it?"]
    searched = ["How much is it? botox", "How much is it? parking", "How much is it? botox"]
    vectors = [unit(1, 0, 0), unit(0, 1, 0), unit(1, 0, 0)]
    assert group(texts, vectors, (3,), searched, [unit(0, 0, 1)] * 3) == [[0, 2], [1]]
