"""A chunk as a lexical index takes it: the embedded backend's (`embedded.lexical.LexicalIndex`) and any other
backend that indexes the same terms."""

from __future__ import annotations

from dataclasses import dataclass

from botyard.retrieval.language import detect
from botyard.retrieval.stored_terms import kept_language


@dataclass(frozen=True)
class Document:
    """What the lexical index needs of a chunk: its row in the chatbot's arrays, its source, and its words: `text`,
    with its source's `title` and its `heading` (`lexical`); the `terms` kept at ingestion under `terms_tag` spare
    their analysis (`stored_terms`). Held apart, so that 100k rows do not make 100k joined copies of their texts."""

    row: int
    source_uuid: str
    text: str
    title: str = ""
    terms: str | None = None
    terms_tag: str | None = None
    heading: str = ""

    @property
    def lexical(self) -> str:
        """What BM25 matches: title, heading and text (see `terms.lexical_text`)."""
        return "\n".join(part for part in (self.title, self.heading, self.text) if part)

    def language(self) -> str | None:
        """The language of the document's own words (heading and text, not its title): kept, or detected now."""
        known, language = kept_language(self.terms_tag)
        if known:
            return language
        return detect("\n".join(part for part in (self.heading, self.text) if part))
