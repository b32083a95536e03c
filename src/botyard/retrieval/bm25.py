"""BM25's numbers as tantivy computes them, for every backend: whichever engine scores the chunks, a question's term
weights (`idf`) and its largest possible score (`max_score`, which turns raw scores into [0, 1]) come out the same.

tantivy scores a term of a document `idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average_length))`
(`term_score`), over the term and document counts of the index; the embedded backend lets tantivy score and computes
only the idf and the bound here, another backend scoring by itself uses `term_score` too.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable

K1 = 1.2
"""tantivy's BM25 term-frequency saturation: a term's contribution is at most idf * (K1 + 1)."""
B = 0.75
"""tantivy's BM25 length normalisation: how much a document longer than the average is marked down."""


def idf(total: int, frequency: int) -> float:
    """A term's BM25 idf among `total` documents of which `frequency` hold it (tantivy's formula)."""
    return math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))


def max_score(total: int, frequencies: Iterable[int]) -> float:
    """The score a document would get by holding every term (of these document frequencies) an unbounded number of
    times: the sum of each term's idf times (K1 + 1), in the terms' order."""
    bound = 0.0
    for frequency in frequencies:
        bound += idf(total, frequency) * (K1 + 1)
    return bound


def term_score(weight: float, count: int, length: float, average_length: float) -> float:
    """One term's part of a document's score: its idf (`weight`), its `count` in the document, the document's
    `length` in terms and the average length of the documents (tantivy's formula)."""
    norm = K1 * (1 - B + B * length / average_length) if average_length > 0 else K1
    return weight * count * (K1 + 1) / (count + norm)


def _fieldnorms() -> tuple[int, ...]:
    """The 256 document lengths tantivy keeps (a byte per document): exact up to 40, then 8 values per doubling of the
    step (42, 44, ... 56, 60, 64, ... 88, 96, ...)."""
    table = list(range(41))
    value, step = 40, 2
    while len(table) < 256:
        for _ in range(8):
            value += step
            table.append(value)
        step *= 2
    return tuple(table[:256])


FIELDNORMS = _fieldnorms()


def fieldnorm(length: int) -> int:
    """A document's length as tantivy scores it: the largest of `FIELDNORMS` not above it (its average length is
    of the exact lengths). Scoring a long chunk by its exact length moved its BM25 score by a few hundredths."""
    return FIELDNORMS[bisect.bisect_right(FIELDNORMS, max(length, 0)) - 1]
