"""What both backends' lexical search reads of a text: a text's index terms (`index_terms`, which the answerers
compare with a question's) and what BM25 matches of a chunk (`lexical_text`: its source title, heading and text)."""

from __future__ import annotations

from botyard.retrieval.knowledge import ChunkRow
from botyard.retrieval.language import ENGLISH, LATIN_STEMMED, analyzer, detect, segment


def lexical_text(row: ChunkRow) -> str:
    """What BM25 matches: the source title and the heading path say what a passage is about even when the
    passage itself never repeats the words (a "Fees" paragraph of the "Returns" page)."""
    return "\n".join(part for part in (row.source_title, row.heading, row.text) if part)


def index_terms(text: str, language: str | None = None) -> set[str]:
    """The terms of `text` as an index reads it in `language`: what the answerer compares with the question's.

    Without a language, the text's own; a sentence is too short to tell German from Dutch reliably (8% of
    xquad-de's questions count as many Dutch or Danish stop words as German ones), so a text that is not plainly
    English (or of a script of its own) gets the terms of every Latin-script stemmer: a superset that holds the
    terms its chatbot's index gave it.
    """
    segmented = segment(text)
    if language is None:
        language = detect(text)
        if language is None or (language in LATIN_STEMMED and language != ENGLISH):
            return set().union(*(analyzer(each).analyze(segmented) for each in LATIN_STEMMED))
    return set(analyzer(language).analyze(segmented))
