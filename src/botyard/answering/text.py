"""Plain-language text helpers the offline answerer and the query rewriting share: words, key terms, sentences.

Deliberately small and dependency-free: the offline answerer only has to pick readable sentences that talk about
the question's terms, not to understand them. Chunks are Markdown, so sentences are taken from the prose blocks
with the Markdown syntax removed (headings are kept apart, as context, never quoted as if they were an answer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile("[^\\W_]+(?:['\u2019][^\\W_]+)*")
# A sentence ends at . ! ? or an ellipsis (then closing quotes or brackets), before a capital, digit or opening quote.
_SENTENCE_END = re.compile(
    "(?<=[.!?\u2026])[\"'\u201d\u2019)\\]]*\\s+(?=[\"'\u201c\u2018(\\[]?[A-Z0-9\u00c0-\u00d6\u00d8-\u00de])"
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1")
_SPACES = re.compile(r"[ \t]+")

_STOPWORD_TEXT = """a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during
    each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't
    my myself no nor not of off on once only or other ought our ours ourselves out over own same shan't she she'd
    she'll she's should shouldn't so some such than that that's the their theirs them themselves then there
    there's these they they'd they'll they're they've this those through to too under until up very was wasn't we
    we'd we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's
    with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves also please tell know
    thanks thank hi hello hey much many get got want need like just one ok okay yes"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased (apostrophes inside words kept: "don't")."""
    return [word.lower().replace("\u2019", "'") for word in _WORD.findall(text)]


def stem(word: str) -> str:
    """A crude English stem, enough to match "opens"/"open", "deliveries"/"delivery", "shipping"/"ship"."""
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "shipp" (from "shipping") -> "ship"
    return word


def content_words(text: str) -> list[str]:
    """The words that carry meaning (no stopwords, no single letters), in order, each once."""
    return list(dict.fromkeys(word for word in words(text) if word not in STOPWORDS and len(word) > 1))


def key_terms(text: str) -> set[str]:
    """The stems of the content words: what a sentence must mention to be about the same thing."""
    return {stem(word) for word in content_words(text)}


@dataclass(frozen=True)
class Sentence:
    text: str
    heading: str
    """The nearest heading above it within its chunk ("" when none)."""
    position: int
    """Order within its chunk, so sentences picked from one chunk are told in their original order."""


def _inline(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    return _SPACES.sub(" ", text).strip()


def _blocks(markdown: str) -> list[tuple[str, str]]:
    """(heading, prose) pairs: paragraphs joined into one line each, list items and table rows on their own."""
    blocks: list[tuple[str, str]] = []
    heading = ""
    paragraph: list[str] = []
    fenced = False

    def flush() -> None:
        if paragraph:
            blocks.append((heading, _inline(" ".join(paragraph))))
            paragraph.clear()

    for raw in markdown.splitlines():
        line = raw.rstrip()
        if line.lstrip().startswith("```"):
            fenced = not fenced
            flush()
            continue
        if fenced or not line.strip() or _TABLE_RULE.match(line):
            flush()
            continue
        match = _HEADING.match(line)
        if match:
            flush()
            heading = _inline(match[1])
            continue
        if _BULLET.match(line) or "|" in line.strip()[:1]:
            flush()
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            blocks.append((heading, _inline(_BULLET.sub("", " — ".join(cell for cell in cells if cell)))))
            continue
        paragraph.append(line.strip())
    flush()
    return [(heading, text) for heading, text in blocks if text]


def sentences(markdown: str) -> list[Sentence]:
    """The sentences of a chunk's prose, in order, with Markdown syntax removed."""
    found: list[Sentence] = []
    for heading, block in _blocks(markdown):
        for piece in _SENTENCE_END.split(block):
            piece = piece.strip()
            if piece:
                found.append(Sentence(piece, heading, len(found)))
    return found


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
