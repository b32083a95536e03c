"""BM25's numbers as tantivy computes them, for every backend: whichever engine scores the chunks, a question's term
weights (`idf`) and its largest possible score (`max_score`, which turns raw scores into [0, 1]) come out the same.

tantivy scores a term of a document `idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average_length))`
(`term_score`), over the term and document counts of the index; the embedded backend lets tantivy score and computes
only the idf and the bound here, another backend scoring by itself uses `term_score` too.
"""

from __future__ import annotations

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
