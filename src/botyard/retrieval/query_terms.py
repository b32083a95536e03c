"""The query side of one chatbot's BM25, for every backend: which language a question is read in, its terms (typos
read as the chatbot's words they stand for, `spelling`), their weights and which the chatbot has never seen.

It needs of the index only each term's document frequency among the live chunks, their count, a speller over the
chatbot's terms and its languages: the embedded backend's `LexicalIndex` gives its own, another backend the counts
its database keeps, and both weigh a question exactly alike (`bm25`).

Which language a text is read in: its own when it is one of the chatbot's languages (`LANGUAGE_SHARE`), else the
chatbot's main one, so that a question too short to show its language ("Preis Kette?"), or one that reads as Dutch
to a stop-word count, is still read in the German of a German chatbot's knowledge, and meets the same stems.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from botyard.passages import words
from botyard.retrieval import bm25
from botyard.retrieval.language import analyzer, detect, is_stopword, segment, wide_stopwords
from botyard.retrieval.language import straddles as _boundary
from botyard.retrieval.spelling import Speller


def reading(detected: str | None, languages: Collection[str], language: str) -> str:
    """The language a text detected as `detected` is read in: its own if one of the chatbot's `languages`, else its
    main `language`."""
    return detected if detected is not None and detected in languages else language


@dataclass(frozen=True)
class QueryTerms:
    """A question as one chatbot's BM25 reads it."""

    frequency: Callable[[str], int]
    """Each term's document frequency among the chatbot's live chunks (0: never seen)."""
    size: int
    """How many live chunks the chatbot has."""
    speller: Speller
    languages: frozenset[str]
    language: str
    """The chatbot's languages and its main one (`language.chatbot_languages`)."""
    stem: bool = True

    def _reader(self, query: str) -> Callable[[str], list[str]]:
        return analyzer(reading(detect(query), self.languages, self.language), self.stem).analyze

    def resolve(self, term: str) -> str:
        """`term`, or the chatbot's term it is a typo of when it is unseen (`spelling`)."""
        if not self.size or self.frequency(term):
            return term
        return self.speller.correct(term) or term

    def terms(self, query: str) -> list[str]:
        """The query's distinct index terms, in order of first appearance, typos read as what they stand for."""
        return list(dict.fromkeys(self.resolve(term) for term in self._reader(query)(segment(query))))

    def words(self, query: str) -> tuple[list[str], list[bool]]:
        """The query's terms in order (typos resolved), and whether each comes from a stop word."""
        analyse = self._reader(query)
        terms: list[str] = []
        stops: list[bool] = []
        for word in words(segment(query)):
            stop = len(word) <= 1 or is_stopword(word)
            for term in analyse(word):
                terms.append(self.resolve(term))
                # A lone Latin letter split off a word ("friend's" -> "friend", "s") says nothing either.
                stops.append(stop or (len(term) == 1 and term.isascii() and term.isalpha()))
        if all(stops):  # nothing but stop words ("what is this?"): they are all the question says
            stops = [False] * len(stops)
        return terms, stops

    def weights(self, query: str) -> dict[str, float]:
        """The query's content terms (stop words of every language with a list left out, Chinese and Japanese
        question words included) with their BM25 idf in this chatbot: what each word says about the question's
        subject here. A term the chatbot has never seen weighs the most, except a character pair that only
        straddles two known words or stop words (`language.straddles`)."""
        terms, stops = self.words(query)
        total = max(self.size, 1)
        frequencies = [self.frequency(term) for term in terms]
        # A stop word of the list ("多少") is a known word for `straddles`; a pair merely holding a function
        # character ("城有") is not, or "长城有多长" would lose 长城, the word it is about.
        known = [frequency > 0 or term in wide_stopwords() for term, frequency in zip(terms, frequencies, strict=True)]
        found: dict[str, float] = {}
        for index, (term, frequency) in enumerate(zip(terms, frequencies, strict=True)):
            if stops[index] or (frequency == 0 and _boundary(terms, known, index)):
                continue
            found[term] = bm25.idf(total, frequency)
        return found

    def unseen(self, terms: Collection[str]) -> frozenset[str]:
        """The `terms` (index terms, typos resolved) that no chunk of this chatbot uses, in one word or in two."""
        return frozenset(term for term in terms if not self.frequency(term) and not self.speller.joined(term))

    def max_score(self, terms: Sequence[str]) -> float:
        """The BM25 score a chunk would get by matching every term with an unbounded frequency: the scale that turns
        raw scores into [0, 1]. Terms absent from the chatbot count at their full (high) idf, so a query about
        something the chatbot has never heard of scores low even when one common word matches."""
        return bm25.max_score(max(self.size, 1), (self.frequency(term) for term in terms))
