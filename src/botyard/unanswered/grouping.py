"""Open questions grouped by what one answer serves, on read (a few thousand questions take milliseconds).

A question has two readings: what the visitor wrote (`texts`), and what was searched for it (a follow-up completed
from its conversation: "Can I pay in bitcoin?" after "Do you treat horses?" is searched as "Can I pay in bitcoin?
treat horses", `answering.context`). Two questions are one group when both readings are equal (case, spacing and
punctuation aside), or when one answer serves both, which takes all of:

- what they searched is on one subject: a cosine of at least `ON_ONE_SUBJECT`, the similarity the relevance
  decision itself calls "clearly on the subject" (`relevance.REQUIRED` at the default strictness, 0.4 on MiniLM's
  scale, where unrelated texts score 0-0.2);
- what they said is on one subject too, by the same level: words a follow-up borrowed from an earlier turn never
  carry it into that turn's group (the borrowed words put the bitcoin question at 0.64 from the horses one, its
  own at 0.13);
- in one language, they share a content word (a stem, or a character pair where words are not spaced: `terms`),
  stop words of every language aside: one subject is not one question
  ("Do you offer an airport shuttle?" and "Do you have a spa?", a hotel's, are at 0.4 and more). The same question in
  two languages shares no word; there the vectors decide alone (the bundled multilingual model puts a question and
  its translation at 0.50-0.90).

Nothing here was tuned on questions: the level is the relevance decision's, the other two conditions have none.
Measured pair by pair on public sets, before and after the two conditions (`docs/review.md`).

Two questions are compared on their own model's scale: each part of a vector is brought to unit length. A question
read by the second model of a pair (USE-m3, for the languages MiniLM does not read) has its part lengthened so that
its cosine with a *passage* reads on MiniLM's scale (`embedding.pair`); between two questions that factor came twice
(x1.93), and 20 unrelated German questions of the answer probe fell into 5 groups.

Groups form around leaders, not chains: the texts are taken most asked first, and each joins the group whose leader
(its first, most asked text) it is closest to, if one answer serves both, or leads a new group. So a group never
drifts from its leader's subject one small step at a time, and the order of the input decides ties only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from botyard.embedding.base import Vectors, similarities
from botyard.i18n import language_of
from botyard.passages import words
from botyard.retrieval.language import UNSPACED, is_stopword
from botyard.retrieval.relevance import REQUIRED, Strictness
from botyard.retrieval.terms import index_terms

ON_ONE_SUBJECT = REQUIRED[Strictness.BALANCED]
BLOCK = 256
_NOT_WORD = re.compile(r"[\W_]+")


def normalised(text: str) -> str:
    """The form two askings of the same question share: casefolded, words only, single spaces."""
    return _NOT_WORD.sub(" ", text.casefold()).strip()


def terms(text: str) -> set[str]:
    """The index terms (stems, or character pairs where words are not spaced) of the text's content words: its words
    without the stop words of any language with a list."""
    # A run of unspaced characters is many words: its function characters go with its pairs' stop words below.
    content = [word for word in words(text) if UNSPACED.search(word) or (len(word) > 1 and not is_stopword(word))]
    return {term for term in index_terms(" ".join(content)) if not is_stopword(term)} if content else set()


def share_words(first: str, second: str) -> bool:
    """Whether two questions may be one by their words: they share a content word, or are in two languages."""
    if terms(first) & terms(second):
        return True
    languages = language_of(first), language_of(second)
    return None not in languages and languages[0] != languages[1]


def group(
    texts: Sequence[str],
    vectors: Sequence[Vectors | None],
    parts: Sequence[int],
    searched: Sequence[str] | None = None,
    own: Sequence[Vectors | None] | None = None,
) -> list[list[int]]:
    """The indices of `texts` by group (each group's leader text first), the groups in the order they were formed:
    the most asked text's first. `vectors[i]` is the vector of what `texts[i]` was searched as (`searched[i]`, by
    default the text itself); `own[i]` the vector of the text itself where that differs (None: `vectors[i]`).
    Without a vector, a text is grouped with equal ones only."""
    meant = searched if searched is not None else texts
    by_text: dict[tuple[str, str], list[int]] = {}
    for index, text in enumerate(texts):
        by_text.setdefault((normalised(text), normalised(meant[index])), []).append(index)
    keys = sorted(by_text, key=lambda key: -len(by_text[key]))  # a stable sort: ties keep the input's order
    firsts = [next((i for i in by_text[key] if vectors[i] is not None), None) for key in keys]
    embedded = [position for position, first in enumerate(firsts) if first is not None]
    chosen = [first for first in firsts if first is not None]
    found = [vector for vector in (vectors[i] for i in chosen) if vector is not None]
    joined: list[int] = []
    if found:
        rows = _unit_parts(np.stack(found), parts)
        said = _own_rows([own[i] if own is not None else None for i in chosen], rows, parts)
        joined = _join_leaders(rows, said, [texts[i] for i in chosen], parts)
    leader_of = {position: position for position in range(len(keys))}
    leader_of.update({embedded[at]: embedded[leader] for at, leader in enumerate(joined)})
    groups: dict[int, list[int]] = {}
    for position, key in enumerate(keys):
        groups.setdefault(leader_of[position], []).extend(by_text[key])
    return list(groups.values())


def _own_rows(own: Sequence[Vectors | None], searched: Vectors, parts: Sequence[int]) -> Vectors:
    """The vectors of the texts as written: their own where given, else the searched one (the same text)."""
    if all(vector is None for vector in own):
        return searched
    given = _unit_parts(np.stack([vector for vector in own if vector is not None]), parts)
    rows = np.array(searched, copy=True)
    rows[[index for index, vector in enumerate(own) if vector is not None]] = given
    return rows


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


def _join_leaders(searched: Vectors, said: Vectors, texts: Sequence[str], parts: Sequence[int]) -> list[int]:
    """For each row in order, the row that leads its group (itself when it leads a new one): the closest earlier
    leader that one answer serves with it (see the module). The cosines come `BLOCK` questions at a time, one matrix
    product against every row up to them (2,000 questions: a few tenths of a second); words are compared only with
    the leaders close enough."""
    leaders = np.empty(len(searched), dtype=np.int64)
    count = 0
    found: list[int] = []
    for start in range(0, len(searched), BLOCK):
        stop = min(len(searched), start + BLOCK)
        # One row per question of the block: its cosine with every row so far, by both readings; the lesser decides.
        block = np.minimum(
            similarities(searched[:stop], searched[start:stop], parts).T,
            similarities(said[:stop], said[start:stop], parts).T,
        )
        for row in range(start, stop):
            cosines = block[row - start][leaders[:count]]
            close = [int(at) for at in np.argsort(-cosines, kind="stable") if cosines[at] >= ON_ONE_SUBJECT]
            leader = next((int(leaders[at]) for at in close if share_words(texts[row], texts[leaders[at]])), None)
            if leader is None:
                leaders[count] = row
                count += 1
                leader = row
            found.append(leader)
    return found
