"""A chunk's index terms, analysed once at ingestion and kept with the chunk, so that a build of its chatbot's
search index only joins them: analysing every chunk's text again (tokens, Snowball stems, folded accents) was most
of a build, 15 s of 23 at 100k chunks on a 2-core machine, while the first question waited.

What is kept: the language detected from the chunk's heading and text (`language.detect`; a build detects a row's
language from the same words, never from its source's title, so what is kept is what it would find) and their terms
in that language, tagged with the key of the analysis code and libraries (`ANALYSIS_KEY`). A build uses the terms only
for a row it reads in that very language with this very analysis (`usable`); any other row (the chatbot reads it in
its main language, the code changed since, a chunk written before terms were kept) is analysed as before. The source
title is analysed at the build, once per source: a retitle changes no chunk.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path

from botyard.retrieval.language import analyzer, detect, segment

__all__ = ["ANALYSIS_KEY", "analysed", "body", "kept_language", "tag", "usable"]


def _analysis_key() -> str:
    digest = hashlib.sha256((Path(__file__).resolve().parent / "language.py").read_bytes())
    for library in ("tantivy", "stopwordsiso"):
        digest.update(f"{library}=={importlib.metadata.version(library)}".encode())
    return digest.hexdigest()[:12]


ANALYSIS_KEY = _analysis_key()
"""Changes with the analysers' code (`language`) or their libraries: terms kept under another key are not used."""


def tag(language: str | None) -> str:
    """What terms analysed in `language` by this code are kept under ("@<key>": no language shows, no terms)."""
    return f"{language or ''}@{ANALYSIS_KEY}"


def kept_language(terms_tag: str | None) -> tuple[bool, str | None]:
    """Whether `terms_tag` was made by this analysis, and the language it names (None: none showed)."""
    if terms_tag is None:
        return False, None
    language, _, key = terms_tag.rpartition("@")
    return key == ANALYSIS_KEY, language or None


def body(heading: str, text: str) -> str:
    """What of a chunk its kept terms are made of: the part of its lexical text that is the chunk's own."""
    return "\n".join(part for part in (heading, text) if part)


def analysed(heading: str, text: str) -> tuple[str, str | None]:
    """(tag, terms joined by spaces) of a chunk's heading and text; no terms when they show no language: a build
    reads such a row in its chatbot's main language, which the chunk alone cannot tell."""
    words = body(heading, text)
    language = detect(words)
    if language is None:
        return tag(None), None
    return tag(language), " ".join(analyzer(language).analyze(segment(words)))


def usable(terms: str | None, terms_tag: str | None, reading: str, stem: bool) -> bool:
    """Whether kept terms are exactly what analysing the row's own text in `reading` gives now."""
    return terms is not None and stem and terms_tag == tag(reading)
