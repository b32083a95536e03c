"""The passages of a chunk that an answer can quote, and the words that say what a text is about.

A chunk is Markdown. Its passages are the sentences of its prose, its list items, and its table rows; a table row
is rendered as its cells with their column names ("Thursday — Riverside: 8:00-20:00, Northgate: 8:30-19:30"),
because a bare row ("Thursday — 8:00-20:00 — 8:30-19:30") means nothing on its own, to a reader or to the
relevance decision, and the header row itself is never a passage. Headings are kept apart, as each passage's
context, never quoted as if they were an answer.

Deliberately small and dependency-free: the offline answerer and the relevance decision only have to find the
passages that talk about the question's terms, not to understand them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

_WORD = re.compile("[^\\W_]+(?:['\u2019][^\\W_]+)*")
# A sentence ends at . ! ? or an ellipsis (then closing quotes or brackets), before a capital, digit or opening quote.
_SENTENCE_END = re.compile(
    "(?<=[.!?\u2026])[\"'\u201d\u2019)\\]]*\\s+(?=[\"'\u201c\u2018(\\[]?[A-Z0-9\u00c0-\u00d6\u00d8-\u00de])"
)
# Sentences of scripts without spaces (Chinese, Japanese) end at their own full stops.
_WIDE_SENTENCE_END = re.compile("(?<=[\u3002\uff01\uff1f])")
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
    whose with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves also please tell know
    thanks thank hi hello hey much many get got want need like just one ok okay yes"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased (apostrophes inside words kept: "don't")."""
    return [word.lower().replace("\u2019", "'") for word in _WORD.findall(text)]


def word_count(text: str) -> int:
    """How many words `text` has (as `words` finds them, without making them)."""
    return len(_WORD.findall(text))


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


class PassageKind(StrEnum):
    SENTENCE = "sentence"
    ITEM = "item"
    """A list item: quoted as a list item when several of one list answer."""
    ROW = "row"
    """A table row, rendered with its column names."""


@dataclass(frozen=True)
class Passage:
    text: str
    heading: str
    """The nearest heading above it within its chunk ("" when none)."""
    position: int
    """Order within its chunk, so passages picked from one chunk are told in their original order."""
    kind: PassageKind = PassageKind.SENTENCE


def _inline(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    return _SPACES.sub(" ", text).strip()


def _cells(line: str) -> list[str]:
    return [_inline(cell.strip()) for cell in line.strip().strip("|").split("|")]


def table_row(cells: list[str], header: list[str]) -> str:
    """A row as one fact: its first cell, then each further non-empty cell with its column's name; a row with one
    value is "what: value" ("E-bike service: 119 euros"), as a person would read it out."""
    if not header or len(header) != len(cells):
        return " — ".join(cell for cell in cells if cell)
    pairs = [(name, cell) for name, cell in zip(header[1:], cells[1:], strict=True) if cell]
    if len(pairs) == 1 and cells[0]:
        return f"{cells[0]}: {pairs[0][1]}"
    named = [f"{name}: {cell}" if name else cell for name, cell in pairs]
    return " — ".join(part for part in (cells[0], ", ".join(named)) if part)


class _Reader:
    """Markdown lines to (heading, text, kind) blocks: paragraphs joined into one line, items and rows alone."""

    def __init__(self) -> None:
        self.blocks: list[tuple[str, str, PassageKind]] = []
        self.heading = ""
        self.paragraph: list[str] = []
        self.header: list[str] = []
        self.first_row: list[str] | None = None
        """A table's first row, until the next line says whether it is the header (a rule follows) or data."""

    def flush(self) -> None:
        if self.paragraph:
            self.blocks.append((self.heading, _inline(" ".join(self.paragraph)), PassageKind.SENTENCE))
            self.paragraph.clear()

    def end_table(self) -> None:
        if self.first_row is not None:  # a one-row "table" without a rule: plain cells
            self.blocks.append((self.heading, table_row(self.first_row, []), PassageKind.ROW))
        self.first_row, self.header = None, []

    def line(self, line: str) -> None:
        if _TABLE_RULE.match(line) and "|" in line:
            if self.first_row is not None:
                self.header, self.first_row = self.first_row, None
            return
        if line.strip().startswith("|"):
            self.flush()
            cells = _cells(line)
            if not self.header and self.first_row is None:
                self.first_row = cells
            else:
                if self.first_row is not None:  # two rows with no rule between: no header
                    self.blocks.append((self.heading, table_row(self.first_row, []), PassageKind.ROW))
                    self.first_row = None
                self.blocks.append((self.heading, table_row(cells, self.header), PassageKind.ROW))
            return
        self.end_table()
        if not line.strip() or _TABLE_RULE.match(line):
            self.flush()
            return
        match = _HEADING.match(line)
        if match:
            self.flush()
            self.heading = _inline(match[1])
        elif _BULLET.match(line):
            self.flush()
            self.blocks.append((self.heading, _inline(_BULLET.sub("", line)), PassageKind.ITEM))
        else:
            self.paragraph.append(line.strip())


def _blocks(markdown: str) -> list[tuple[str, str, PassageKind]]:
    reader = _Reader()
    fenced = False
    for raw in markdown.splitlines():
        line = raw.rstrip()
        if line.lstrip().startswith("```"):
            fenced = not fenced
            reader.end_table()
            reader.flush()
            continue
        if not fenced:
            reader.line(line)
    reader.end_table()
    reader.flush()
    return [block for block in reader.blocks if block[1]]


def passages(markdown: str) -> list[Passage]:
    """The passages of a chunk, in order, with Markdown syntax removed."""
    found: list[Passage] = []
    for heading, block, kind in _blocks(markdown):
        pieces = [block] if kind is PassageKind.ROW else _split_sentences(block)
        for piece in pieces:
            piece = piece.strip()
            if piece:
                found.append(Passage(piece, heading, len(found), kind))
    return found


def _split_sentences(block: str) -> list[str]:
    return [wide for piece in _SENTENCE_END.split(block) for wide in _WIDE_SENTENCE_END.split(piece)]
