"""A chatbot's words as one question needs them, read from `search_term`: the question's terms with their
document frequencies, typos read as the chatbot's words they stand for (`spelling`), and the same weights, unseen
terms and largest possible BM25 score as the embedded index gives (`lexical.LexicalIndex`), from the same rules."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.passages import words
from botyard.retrieval import bm25
from botyard.retrieval.language import analyzer, detect, is_stopword, segment, wide_stopwords
from botyard.retrieval.language import straddles as _boundary
from botyard.retrieval.postgres.rows import Languages
from botyard.retrieval.spelling import MIN_PART, Speller, allowed_edits


def _pieces(term: str) -> set[str]:
    """The words `Speller.joined` looks up for `term`: each head and tail of a cut, and a tail without its "s"."""
    found: set[str] = set()
    for cut in range(MIN_PART, len(term) - MIN_PART + 1):
        head, tail = term[:cut], term[cut:]
        found.update((head, tail, tail[1:]))
    return found


class Lexicon:
    def __init__(self, frequencies: dict[str, int], size: int, languages: Languages, query: str) -> None:
        self._frequencies = frequencies
        self.size = size
        self.languages = languages
        self._speller = Speller(frequencies)
        self.reading = languages.reading(detect(query))

    @classmethod
    async def load(
        cls, session: AsyncSession, chatbot_uuid: str, size: int, languages: Languages, query: str
    ) -> Lexicon:
        """What of the chatbot's vocabulary `query` needs: its terms' frequencies and, for an unseen word that may be
        a typo, the words of a length it could stand for (`spelling`)."""
        reading = languages.reading(detect(query))
        raw = list(analyzer(reading).analyze(segment(query)))
        found = await _frequencies(session, chatbot_uuid, raw)
        unseen = [term for term in dict.fromkeys(raw) if term not in found]
        pieces = set().union(*(_pieces(term) for term in unseen)) if unseen else set()
        found |= await _frequencies(session, chatbot_uuid, sorted(pieces))
        for term in unseen:
            edits = allowed_edits(term)
            if edits:
                found |= await _near(session, chatbot_uuid, len(term) - edits, len(term) + edits)
        return cls(found, size, languages, query)

    def frequency(self, term: str) -> int:
        return self._frequencies.get(term, 0)

    def _resolve(self, term: str) -> str:
        if not self.size or self.frequency(term):
            return term
        return self._speller.correct(term) or term

    def terms(self, query: str) -> list[str]:
        """The query's distinct index terms, typos read as what they stand for (`LexicalIndex.terms`)."""
        return list(dict.fromkeys(self._resolve(term) for term in analyzer(self.reading).analyze(segment(query))))

    def _query_words(self, query: str) -> tuple[list[str], list[bool]]:
        reader = analyzer(self.reading)
        terms: list[str] = []
        stops: list[bool] = []
        for word in words(segment(query)):
            stop = len(word) <= 1 or is_stopword(word)
            for term in reader.analyze(word):
                terms.append(self._resolve(term))
                stops.append(stop or (len(term) == 1 and term.isascii() and term.isalpha()))
        if all(stops):
            stops = [False] * len(stops)
        return terms, stops

    def weights(self, query: str) -> dict[str, float]:
        """The query's content terms with their idf here (`LexicalIndex.weights`)."""
        terms, stops = self._query_words(query)
        frequencies = [self.frequency(term) for term in terms]
        known = [frequency > 0 or term in wide_stopwords() for term, frequency in zip(terms, frequencies, strict=True)]
        found: dict[str, float] = {}
        for index, (term, frequency) in enumerate(zip(terms, frequencies, strict=True)):
            if stops[index] or (frequency == 0 and _boundary(terms, known, index)):
                continue
            found[term] = idf(self.size, frequency)
        return found

    def unseen(self, terms: Collection[str]) -> frozenset[str]:
        return frozenset(term for term in terms if not self.frequency(term) and not self._speller.joined(term))

    def max_score(self, terms: Sequence[str]) -> float:
        """The largest BM25 score a chunk could reach on `terms` (`LexicalIndex.max_score`)."""
        return sum(idf(self.size, self.frequency(term)) * (bm25.K1 + 1) for term in terms)


def idf(size: int, frequency: int) -> float:
    """BM25's idf as tantivy computes it (`bm25.idf`)."""
    return bm25.idf(max(size, 1), frequency)


async def _frequencies(session: AsyncSession, chatbot_uuid: str, terms: Sequence[str]) -> dict[str, int]:
    if not terms:
        return {}
    statement = text("SELECT term, frequency FROM search_term WHERE chatbot_uuid = :bot AND term = ANY(:terms)")
    rows = await session.execute(statement, {"bot": chatbot_uuid, "terms": sorted(set(terms))})
    return {row.term: int(row.frequency) for row in rows}


async def _near(session: AsyncSession, chatbot_uuid: str, shortest: int, longest: int) -> dict[str, int]:
    """The chatbot's words of these lengths (those a typo of that length may stand for)."""
    statement = text(
        "SELECT term, frequency FROM search_term WHERE chatbot_uuid = :bot "
        "AND char_length(term) BETWEEN :shortest AND :longest"
    )
    rows = await session.execute(statement, {"bot": chatbot_uuid, "shortest": shortest, "longest": longest})
    return {row.term: int(row.frequency) for row in rows}
