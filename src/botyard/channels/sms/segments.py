"""SMS segments: a text as messages that each fit in at most `MOST_SEGMENTS` segments, cut between sentences.

An SMS carries 140 bytes. A text of GSM-7 characters only (GSM 03.38's basic set, and its extension table, whose
characters take two) fits 160 in one message, or 153 a segment when it is sent in several (the rest is the header
that joins them); any other character sends the whole message as UCS-2: 70 in one, 67 a segment, each character
outside the BMP (an emoji) two. A character's two units never straddle two segments. Carriers deliver a text of
many segments unreliably and bill each segment, so a long reply goes as several messages of at most 10 segments,
cut after a sentence, else after a word, else anywhere. Before it is cut, the look-alikes of GSM-7 characters that
answers are full of (curly quotes, dashes, the ellipsis, a list's bullet) are written as those characters
(`smart`, as Twilio's Smart Encoding does): one of them would send the whole message as UCS-2, at 67 a segment.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

GSM_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿"
    "abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM_EXTENDED = frozenset("^{}\\[~]|€\f")
MOST_SEGMENTS = 10
LOOK_ALIKES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2022": "-",
        "\u2026": "...",
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
    }
)
"""Characters outside GSM-7 and what each is written as (Twilio's Smart Encoding's common cases)."""
_SENTENCE = re.compile(r".+?(?:[.!?]+(?=\s)|\n|$)\s*", re.S)
_WORD = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class Encoding:
    name: str
    single: int
    """Units in a message of one segment."""
    per_segment: int
    """Units in each segment of a message of several."""

    def cost(self, char: str) -> int:
        if self.name == "GSM-7":
            return 2 if char in GSM_EXTENDED else 1
        return 2 if ord(char) > 0xFFFF else 1


GSM7 = Encoding("GSM-7", 160, 153)
UCS2 = Encoding("UCS-2", 70, 67)


def smart(text: str) -> str:
    """The text with the look-alikes of GSM-7 characters written as those (an emoji, an accented letter stay)."""
    return text.translate(LOOK_ALIKES)


def encoding(text: str) -> Encoding:
    return GSM7 if all(char in GSM_BASIC or char in GSM_EXTENDED for char in text) else UCS2


def count(text: str) -> int:
    """How many segments the text is sent as (an empty text is one)."""
    used = encoding(text)
    costs = [used.cost(char) for char in text]
    if sum(costs) <= used.single:
        return 1
    segments, filled = 1, 0
    for cost in costs:
        if filled + cost > used.per_segment:
            segments, filled = segments + 1, 0
        filled += cost
    return segments


def messages(text: str, most: int = MOST_SEGMENTS) -> list[str]:
    """The text as messages of at most `most` segments each, cut between sentences where one fits."""
    text = text.strip()
    if not text:
        return []
    return [part for part in _packed(_SENTENCE.findall(text), lambda part: count(part.strip()) <= most) if part]


def _packed(pieces: list[str], fits: Callable[[str], bool]) -> Iterator[str]:
    """Whole pieces joined while they fit; a piece too long alone is cut into words, a word into characters."""
    current = ""
    for piece in pieces:
        if fits(current + piece):
            current += piece
            continue
        if current:
            yield current.strip()
        current = ""
        if fits(piece):
            current = piece
            continue
        smaller = _WORD.findall(piece) if len(_WORD.findall(piece)) > 1 else list(piece)
        *whole, current = list(_packed(smaller, fits)) or [""]
        yield from whole
    if current.strip():
        yield current.strip()
