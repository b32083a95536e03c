"""Text helpers of answering: the word groups an answer streams in, and (re-exported from `botyard.passages`,
their one home) the words and key terms routing, tagging and the query rewriting share."""

from __future__ import annotations

import re

from botyard.passages import STOPWORDS, content_words, key_terms, stem, words

__all__ = ["STOPWORDS", "content_words", "key_terms", "stem", "word_groups", "words"]


def word_groups(text: str, size: int = 3) -> list[str]:
    """`text` cut after every `size` words, each piece keeping the whitespace (and newlines) that follows it; the
    pieces join back to exactly `text`."""
    pieces = re.findall(r"\s+|\S+\s*", text)
    groups: list[str] = []
    current = ""
    count = 0
    for piece in pieces:
        current += piece
        if piece.strip():
            count += 1
        if count >= size or "\n" in piece:
            groups.append(current)
            current, count = "", 0
    if current:
        groups.append(current)
    return groups
