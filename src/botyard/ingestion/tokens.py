"""Token counts with OpenAI's `o200k_base` BPE, offline: the encoding ships inside the bpe-openai wheel."""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Protocol, cast

with warnings.catch_warnings():
    # bpe-openai 0.1.4 reads its bundled ranks with importlib.resources.open_binary, deprecated since Python 3.11.
    warnings.simplefilter("ignore", DeprecationWarning)
    import bpe_openai


class _Encoding(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


@lru_cache(maxsize=1)
def _encoding() -> _Encoding:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return cast(_Encoding, bpe_openai.get_encoding("o200k_base"))


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text)) if text else 0


def truncate_tokens(text: str, limit: int) -> str:
    """The longest prefix of `text` that fits in `limit` tokens."""
    tokens = _encoding().encode(text)
    return text if len(tokens) <= limit else _encoding().decode(tokens[:limit])
