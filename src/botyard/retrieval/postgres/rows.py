"""How a chunk is indexed by the postgres backend: its terms as the embedded index reads them (`lexical`), its
language, and its vector split into one text literal per model part."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from botyard.retrieval.knowledge import ChunkRow, Stored
from botyard.retrieval.language import analyzer, chatbot_languages, segment
from botyard.retrieval.lexical_document import Document
from botyard.retrieval.query_terms import reading
from botyard.retrieval.stored_terms import usable


@dataclass(frozen=True)
class Languages:
    """The chatbot's languages and main one (`language.chatbot_languages`), from its chunks' detected languages."""

    languages: frozenset[str]
    main: str

    @classmethod
    def of(cls, detected: Counter[str | None]) -> Languages:
        languages, main = chatbot_languages(+detected)
        return cls(languages, main)

    def reading(self, detected: str | None) -> str:
        """The language a text detected as `detected` is read in: its own if the chatbot's, else the main one."""
        return reading(detected, self.languages, self.main)


@dataclass(frozen=True)
class Indexed:
    """One `search_chunk` row's values."""

    chunk_uuid: str
    data_source_uuid: str
    tf: dict[str, int]
    length: int
    detected: str | None
    parts: tuple[str | None, ...]


def document_of(row: ChunkRow) -> Document:
    """What the lexical analysis takes of a row (as `index._document`)."""
    return Document(0, row.data_source_uuid, row.text, row.source_title, row.terms, row.terms_tag, row.heading or "")


def terms_of(document: Document, reading: str, titles: dict[tuple[str, str], str]) -> list[str]:
    """The document's terms as the embedded index takes them (`LexicalIndex._add`): its title's analysed in
    `reading` and the terms kept at ingestion when they were made in that language, else its whole text analysed."""
    if usable(document.terms, document.terms_tag, reading, True):
        key = (document.title, reading)
        if key not in titles:
            titles[key] = " ".join(analyzer(reading).analyze(segment(document.title)))
        return f"{titles[key]} {document.terms}".split()
    return list(analyzer(reading).analyze(segment(document.lexical)))


def vector_parts(vector: Stored, parts: Sequence[int]) -> tuple[str | None, ...]:
    """Each part of a stored vector as a pgvector literal; None for a part of zeros (a model that did not read the
    text) or no vector."""
    if vector is None or not parts:
        return (None,) * len(parts)
    values = np.asarray(vector if not isinstance(vector, bytes) else np.frombuffer(vector, dtype="<f4"), np.float32)
    found: list[str | None] = []
    start = 0
    for width in parts:
        piece = values[start : start + width]
        start += width
        found.append("[" + ",".join(f"{value:.5g}" for value in piece.tolist()) + "]" if np.any(piece) else None)
    return tuple(found)


def indexed(
    rows: Sequence[ChunkRow],
    vectors: Sequence[Stored],
    detected: Sequence[str | None],
    languages: Languages,
    parts: Sequence[int],
) -> list[Indexed]:
    """The rows as `search_chunk` rows, each read in its language (`Languages.reading`)."""
    titles: dict[tuple[str, str], str] = {}
    found = []
    for row, vector, language in zip(rows, vectors, detected, strict=True):
        terms = terms_of(document_of(row), languages.reading(language), titles)
        found.append(
            Indexed(
                row.uuid, row.data_source_uuid, dict(Counter(terms)), len(terms), language, vector_parts(vector, parts)
            )
        )
    return found


def tf_json(tf: dict[str, int]) -> str:
    return json.dumps(tf, ensure_ascii=False, separators=(",", ":"))
