"""Open questions grouped by similarity, on read (a few thousand questions take milliseconds).

Two questions are one group when their normalised texts are equal (case, spacing and punctuation aside), or when
their vectors are on one subject: a cosine of at least `ON_ONE_SUBJECT`, the similarity the relevance decision
itself calls "clearly on the subject" (`relevance.REQUIRED` at the default strictness, 0.4 on MiniLM's scale, where
unrelated texts score 0-0.2). Nothing here was tuned on questions.

Groups form around leaders, not chains: the texts are taken most asked first, and each joins the group whose leader
(its first, most asked text) it is closest to, if that is on one subject, or leads a new group. So a group never
drifts from its leader's subject one small step at a time, and the order of the input decides ties only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from botyard.embedding.base import Vectors, similarities
from botyard.retrieval.relevance import REQUIRED, Strictness

ON_ONE_SUBJECT = REQUIRED[Strictness.BALANCED]
_NOT_WORD = re.compile(r"[\W_]+")


def normalised(text: str) -> str:
    """The form two askings of the same question share: casefolded, words only, single spaces."""
    return _NOT_WORD.sub(" ", text.casefold()).strip()


def group(texts: Sequence[str], vectors: Sequence[Vectors | None], parts: Sequence[int]) -> list[list[int]]:
    """The indices of `texts` by group (each group's leader text first), the groups in the order they were formed:
    the most asked text's first. `vectors[i]` is the vector of `texts[i]`, or of what it meant (a follow-up
    completed from its conversation); None: grouped by equal text only."""
    by_text: dict[str, list[int]] = {}
    for index, text in enumerate(texts):
        by_text.setdefault(normalised(text), []).append(index)
    keys = sorted(by_text, key=lambda key: -len(by_text[key]))  # a stable sort: ties keep the input's order
    groups: list[list[int]] = []
    leaders: list[Vectors] = []
    leader_groups: list[int] = []
    for key in keys:
        members = by_text[key]
        vector = next((vectors[index] for index in members if vectors[index] is not None), None)
        if vector is not None and leaders:
            cosines = similarities(np.stack(leaders), vector, parts)[:, 0]
            best = int(np.argmax(cosines))
            if float(cosines[best]) >= ON_ONE_SUBJECT:
                groups[leader_groups[best]].extend(members)
                continue
        if vector is not None:
            leaders.append(vector)
            leader_groups.append(len(groups))
        groups.append(list(members))
    return groups
