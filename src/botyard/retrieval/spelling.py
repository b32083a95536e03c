"""Typos: a question's word the knowledge never uses, read as the knowledge's word it is one slip away from.

"root canel", "free triel", "ClearStep alingers" match nothing as typed, and a word the knowledge never uses weighs
the most in the relevance decision, so one typo would sink an answerable question. An unseen term (as analysed:
"alingers" is the stem "aling") counts as the chatbot's term at the smallest edit distance (a swap of two neighbouring
letters counts as one edit) when that distance is at most 1 for terms of 5 to 7 letters and 2 for terms of 8 or more;
shorter terms are never corrected (at 4 letters one edit turns most words into another word). Among equally close
terms the most frequent in the knowledge wins, then the first in alphabetical order. Only terms of letters are
corrected: numbers, codes and Chinese or Japanese character pairs are exact.

Two of the knowledge's terms written as one word ("highchairs" for "high chairs", the German "Mittwochnachmittag"
and, with its linking "s", "Arbeitsstunde") are `joined`: the knowledge names what the word says, apart.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Mapping

from rapidfuzz import process
from rapidfuzz.distance import OSA

from botyard.retrieval.language import UNSPACED

ONE_EDIT = 5
"""Terms of at least this many letters can be one edit away from the term meant."""
TWO_EDITS = 8
"""Terms of at least this many letters can be two edits away."""


MEMO = 4096
"""Corrections kept per index (an index is immutable, so they stay right)."""


def _correctable(term: str) -> bool:
    """Whether a term of the knowledge can be what a typo stood for (words of letters long enough to be mistyped)."""
    return len(term) >= ONE_EDIT - 1 and term.isalpha() and not UNSPACED.search(term)


def allowed_edits(term: str) -> int:
    """How many edits `term` may be from the term meant (0: it is taken as typed)."""
    if not term.isalpha() or UNSPACED.search(term):
        return 0
    return 2 if len(term) >= TWO_EDITS else 1 if len(term) >= ONE_EDIT else 0


MIN_PART = 3
"""Characters at least of each word of a compound (`Speller.joined`): shorter ones are affixes, not words."""


class Speller:
    """The chatbot's terms by length, and how often each is used (its document frequency)."""

    def __init__(self, frequencies: Mapping[str, int]) -> None:
        self._frequencies = frequencies
        self._corrected: dict[str, str | None] = {}
        """Corrections made so far (a question's words are looked up for the search and again for the weights)."""
        self._by_length: dict[int, list[str]] = defaultdict(list)
        for term in sorted(frequencies):
            if _correctable(term):
                self._by_length[len(term)].append(term)

    def joined(self, term: str) -> bool:
        """Whether `term` is two of the knowledge's terms written as one word, with or without a linking "s"."""
        if not term.isalpha() or UNSPACED.search(term):
            return False  # Chinese and Japanese are read in character pairs: a pair is no compound
        for cut in range(MIN_PART, len(term) - MIN_PART + 1):
            head, tail = term[:cut], term[cut:]
            linked = tail[0] == "s" and len(tail) > MIN_PART and self._frequencies.get(tail[1:], 0) > 0
            if self._frequencies.get(head, 0) > 0 and (self._frequencies.get(tail, 0) > 0 or linked):
                return True
        return False

    def updated(self, appeared: Iterable[str], vanished: Iterable[str]) -> Speller:
        """A speller for the same (changed) frequencies with the terms the knowledge now uses for the first time
        and without those it no longer uses: a copy, since searches of the older index may still read this one."""
        new = Speller.__new__(Speller)
        new._frequencies, new._corrected, new._by_length = self._frequencies, {}, defaultdict(list, self._by_length)
        added: dict[int, set[str]] = defaultdict(set)
        removed: dict[int, set[str]] = defaultdict(set)
        for term in appeared:
            if _correctable(term):
                added[len(term)].add(term)
        for term in vanished:
            if _correctable(term):
                removed[len(term)].add(term)
        for length in added.keys() | removed.keys():
            kept = [term for term in new._by_length[length] if term not in removed[length]]
            for term in sorted(added[length] - set(kept)):
                bisect.insort(kept, term)
            new._by_length[length] = kept
        return new

    def correct(self, term: str) -> str | None:
        """The chatbot's term that unseen `term` stands for, or None (see the module)."""
        if term not in self._corrected:
            if len(self._corrected) >= MEMO:
                self._corrected.clear()
            self._corrected[term] = self._correct(term)
        return self._corrected[term]

    def _correct(self, term: str) -> str | None:
        edits = allowed_edits(term)
        if not edits:
            return None
        best: tuple[int, int, str] | None = None
        for candidate, distance in self._near(term, edits):
            key = (distance, -self._frequencies[candidate], candidate)
            if best is None or key < best:
                best = key
        return best[2] if best else None

    def _near(self, term: str, edits: int) -> Iterable[tuple[str, int]]:
        for length in range(len(term) - edits, len(term) + edits + 1):
            choices = self._by_length.get(length)
            if choices:
                found = process.extract(term, choices, scorer=OSA.distance, score_cutoff=edits, limit=None)
                yield from ((candidate, int(distance)) for candidate, distance, _ in found)
