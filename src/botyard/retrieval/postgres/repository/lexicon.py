"""What of a chatbot's vocabulary one question needs, read from `search_term`: the question's terms with their
document frequencies and, for an unseen word that may be a typo, the chatbot's words of a length it could stand for
(`spelling`). The question is then weighed by the rules every backend shares (`query_terms.QueryTerms`)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.retrieval.language import analyzer, detect, segment
from botyard.retrieval.postgres.rows import Languages
from botyard.retrieval.query_terms import QueryTerms
from botyard.retrieval.spelling import MIN_PART, Speller, allowed_edits


def _pieces(term: str) -> set[str]:
    """The words `Speller.joined` looks up for `term`: each head and tail of a cut, and a tail without its "s"."""
    found: set[str] = set()
    for cut in range(MIN_PART, len(term) - MIN_PART + 1):
        head, tail = term[:cut], term[cut:]
        found.update((head, tail, tail[1:]))
    return found


async def query_terms(
    session: AsyncSession, chatbot_uuid: str, size: int, languages: Languages, query: str
) -> QueryTerms:
    """The question as this chatbot's BM25 reads it, from the few `search_term` rows it needs (see the module)."""
    raw = list(analyzer(languages.reading(detect(query))).analyze(segment(query)))
    found = await _frequencies(session, chatbot_uuid, raw)
    unseen = [term for term in dict.fromkeys(raw) if term not in found]
    pieces = set().union(*(_pieces(term) for term in unseen)) if unseen else set()
    found |= await _frequencies(session, chatbot_uuid, sorted(pieces))
    for term in unseen:
        edits = allowed_edits(term)
        if edits:
            found |= await _near(session, chatbot_uuid, term, edits)
    return QueryTerms(lambda term: found.get(term, 0), size, Speller(found), languages.languages, languages.main)


async def _frequencies(session: AsyncSession, chatbot_uuid: str, terms: Sequence[str]) -> dict[str, int]:
    if not terms:
        return {}
    statement = text("SELECT term, frequency FROM search_term WHERE chatbot_uuid = :bot AND term = ANY(:terms)")
    rows = await session.execute(statement, {"bot": chatbot_uuid, "terms": sorted(set(terms))})
    return {row.term: int(row.frequency) for row in rows}


def _bigrams(term: str) -> list[str]:
    return sorted({term[at : at + 2] for at in range(len(term) - 1)})


async def _near(session: AsyncSession, chatbot_uuid: str, term: str, edits: int) -> dict[str, int]:
    """The chatbot's words that may be within `edits` of `term` (the speller then measures each): of the lengths
    they can have, and sharing enough of its letter pairs. An edit of the speller's distance (`OSA`: a letter put
    in, left out, changed, or two swapped) breaks at most three of a word's pairs, so a word `edits` away shares all
    but `3 x edits` of `term`'s distinct pairs: the rest cannot be, and are not read (of 189k words, a length band
    alone held 75k, 0.7-1.4 s to read)."""
    grams = _bigrams(term)
    needed = len(grams) - 3 * edits
    # One sum of tests per row, written out: a subquery over the pairs per row cost three times as much.
    shared = (
        " AND "
        + " + ".join(f"CAST(strpos(term, :gram{at}) > 0 AS integer)" for at in range(len(grams)))
        + " >= :needed"
        if needed > 0
        else ""
    )
    statement = text(
        "SELECT term, frequency FROM search_term WHERE chatbot_uuid = :bot "  # noqa: S608
        f"AND char_length(term) BETWEEN :shortest AND :longest{shared}"
    )
    values: dict[str, object] = {"bot": chatbot_uuid, "shortest": len(term) - edits, "longest": len(term) + edits}
    if shared:
        values |= {f"gram{at}": gram for at, gram in enumerate(grams)} | {"needed": needed}
    rows = await session.execute(statement, values)
    return {row.term: int(row.frequency) for row in rows}
