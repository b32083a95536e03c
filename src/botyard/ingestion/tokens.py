"""Token counts with OpenAI's `o200k_base` BPE, offline: the encoding ships inside the bpe-openai wheel.

We load bpe-openai's Rust tokenizer (its extension module `_bindings`) by itself, without the package's Python
wrapper, which adds nothing we use and costs three ways. Importing the package builds Python dicts of the cl100k and
o200k ranks and keeps them for good (60 MB a process, and 0.9 s at every start). The wrapper refuses any text holding
a special token's spelling ("<|endoftext|>": tiktoken's disallowed special tokens), which would fail a question or a
document that quotes one. And it refuses an input of 1,000,000 characters or more. The tokenizer counts a text of
any size exactly (`count`, without building the list of tokens) and encodes what it is given as ordinary text. A
text with a lone surrogate (which JSON can carry) is not UTF-8: it is encoded with the surrogate replaced, as the
wrapper did.

Truncating and splitting encode at most `WINDOW_CHARS` characters at once, each window cut where a run of
whitespace starts: o200k never merges a word with the whitespace after it, so a window's tokens are those of the
whole text there (a text without whitespace is cut anywhere, off by a token per window at worst). Their cost and
memory are then in proportion to the part of the text they keep, not to the whole text.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Protocol, cast

WINDOW_CHARS = 40_000
"""Characters encoded at once by `truncate_tokens` and `split_tokens` (see the module's docstring)."""


class _Tokenizer(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...

    def count(self, text: str) -> int: ...


@lru_cache(maxsize=1)
def _tokenizer() -> _Tokenizer:
    """The o200k tokenizer of bpe-openai's extension module, loaded from its file: importing it the usual way
    (`bpe_openai._bindings`) would run the package's `__init__` first (see the module's docstring)."""
    package = importlib.util.find_spec("bpe_openai")  # finding a package does not import it
    if package is None or not package.submodule_search_locations:
        raise ImportError("bpe-openai is not installed")
    folder = Path(package.submodule_search_locations[0])
    names = ("_bindings" + suffix for suffix in importlib.machinery.EXTENSION_SUFFIXES)
    path = next(path for path in map(folder.joinpath, names) if path.exists())
    loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", str(path))
    spec = importlib.util.spec_from_file_location(loader.name, path, loader=loader)
    assert spec is not None
    bindings = importlib.util.module_from_spec(spec)
    loader.exec_module(bindings)
    return cast(_Tokenizer, bindings.tokenizer_for_encoding("o200k_base"))


def _valid(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD, as UTF-8 needs (surrogate pairs become their character)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _count(text: str) -> int:
    try:
        return _tokenizer().count(text)
    except UnicodeEncodeError:  # a lone surrogate: rare, so not looked for in every text
        return _tokenizer().count(_valid(text))


def _encode(text: str) -> list[int]:
    try:
        return _tokenizer().encode(text)
    except UnicodeEncodeError:
        return _tokenizer().encode(_valid(text))


def _decode(tokens: list[int]) -> str | None:
    """The text `tokens` spell, or None where they end inside a multi-byte character."""
    try:
        return _tokenizer().decode(tokens)
    except ValueError:
        return None


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
    return _count(text) if text else 0


def truncate_tokens(text: str, limit: int) -> str:
    """The longest prefix of `text` that fits in `limit` tokens."""
    if limit <= 0:
        return ""
    used = 0
    kept: list[str] = []
    for window in _windows(text):
        tokens = _encode(window)
        if used + len(tokens) > limit:
            kept.append(_spelled(window, tokens[: limit - used]))
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
            tokens = _encode(window)
            if len(tokens) > limit or start + len(window) == len(text) or span >= WINDOW_CHARS:
                break
            span *= 2  # a window of long tokens ('=' * 5000): look further before cutting
        # A character that alone takes more than `limit` byte tokens is kept whole: the piece must move forward.
        piece = window if len(tokens) <= limit else _spelled(window, tokens[:limit]) or window[:1]
        cut = piece.rfind(" ")
        if len(piece) < len(window) and cut > 0:
            piece = piece[: cut + 1]
        start += len(piece)
        if piece.strip():
            yield piece.strip()


def _spelled(window: str, tokens: list[int]) -> str:
    """The longest prefix of `window` that the first of `tokens` (its first tokens) spell, never cutting a character
    in two: a token can end inside a multi-byte character, which does not decode."""
    while tokens:
        text = _decode(tokens)
        if text is not None and window.startswith(text):
            return text
        tokens = tokens[:-1]
    return ""
