"""Open questions grouped by similarity, on read (a few thousand questions take milliseconds).

Two questions are one group when their normalised texts are equal (case, spacing and punctuation aside), or when
their vectors are on one subject: a cosine of at least `ON_ONE_SUBJECT`, the similarity the relevance decision
itself calls "clearly on the subject" (`relevance.REQUIRED` at the default strictness, 0.4 on MiniLM's scale, where
unrelated texts score 0-0.2). Nothing here was tuned on questions.

Two questions are compared on their own model's scale: each part of a vector is brought to unit length. A question
read by the second model of a pair (USE-m3, for the languages MiniLM does not read) has its part lengthened so that
its cosine with a *passage* reads on MiniLM's scale (`embedding.pair`); between two questions that factor came twice
(x1.93), and 20 unrelated German questions of the answer probe ("Wie hoch ist die Zugspitze?" with "Wann habt ihr
montags geöffnet?") fell into 5 groups. Measured with USE-m3 on 200 XQuAD questions (not the probes): a question
and its translation are at 0.50-0.90 (en-de 5th percentile 0.64, de-zh 0.50), two unrelated questions at a median
of 0.20, and 1.3% of unrelated pairs reach 0.4 (12.7% once lengthened, 0.29 raw).

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
BLOCK = 256
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
    first_vector = [next((vectors[i] for i in by_text[key] if vectors[i] is not None), None) for key in keys]
    embedded = [position for position, vector in enumerate(first_vector) if vector is not None]
    rows = [vector for vector in first_vector if vector is not None]
    joined = _join_leaders(_unit_parts(np.stack(rows), parts), parts) if rows else []
    leader_of = {position: position for position in range(len(keys))}
    leader_of.update({embedded[at]: embedded[leader] for at, leader in enumerate(joined)})
    groups: dict[int, list[int]] = {}
    for position, key in enumerate(keys):
        groups.setdefault(leader_of[position], []).extend(by_text[key])
    return list(groups.values())


def _unit_parts(matrix: Vectors, parts: Sequence[int]) -> Vectors:
    """Each part of each row at unit length (an empty part stays empty): two rows' dot product is then the cosine of
    the model that read them, on its own scale (see the module)."""
    scaled = np.array(matrix, dtype=np.float32, copy=True)
    start = 0
    for width in parts or (matrix.shape[1],):
        part = scaled[:, start : start + width]
        lengths = np.linalg.norm(part, axis=1, keepdims=True)
        part *= np.where(lengths > 0, 1.0 / np.maximum(lengths, 1e-12), 0.0)
        start += width
    return scaled


def _join_leaders(matrix: Vectors, parts: Sequence[int]) -> list[int]:
    """For each row of `matrix` in order, the row that leads its group (itself when it leads a new one): the
    closest earlier leader, if it is on one subject. The cosines come `BLOCK` questions at a time, one matrix
    product against every row up to them (2,000 questions: a few tenths of a second)."""
    leaders = np.empty(len(matrix), dtype=np.int64)
    count = 0
    found: list[int] = []
    for start in range(0, len(matrix), BLOCK):
        stop = min(len(matrix), start + BLOCK)
        # One row per question of the block: its cosine with every row so far.
        block = np.ascontiguousarray(similarities(matrix[:stop], matrix[start:stop], parts).T)
        for row in range(start, stop):
            if count:
                cosines = block[row - start][leaders[:count]]
                best = int(np.argmax(cosines))
                if float(cosines[best]) >= ON_ONE_SUBJECT:
                    found.append(int(leaders[best]))
                    continue
            leaders[count] = row
            count += 1
            found.append(row)
    return found
