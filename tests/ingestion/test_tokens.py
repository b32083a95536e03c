"""Token counting on texts of any size: bpe-openai refuses an input of 1,000,000 characters or 200,000 tokens, so
the counter works in bounded windows (issue 17, item 1)."""

from __future__ import annotations

import random
import string
import subprocess
import sys

from botyard.ingestion.tokens import WINDOW_CHARS, count_tokens, split_tokens, truncate_tokens
from tests.support.waiting import START

SENTENCE = "The warehouse ships every order within two days, and returns are free for thirty days. "


def test_a_text_of_over_a_million_characters_is_counted() -> None:
    repeats = 1_100_000 // len(SENTENCE)
    text = SENTENCE * repeats
    assert len(text) > 1_000_000
    # Windows are cut where whitespace starts, so prose is counted exactly: each further sentence adds what the
    # second one adds to the first (its trailing space joins the next sentence's first word).
    each = count_tokens(SENTENCE * 2) - count_tokens(SENTENCE)
    assert count_tokens(text) == count_tokens(SENTENCE) + each * (repeats - 1)


def test_a_text_of_over_200_000_tokens_without_spaces_is_counted() -> None:
    text = "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=900_000))
    assert count_tokens(text) > 200_000  # one encode of it raised TokenLimitError


def test_truncating_a_huge_text_keeps_a_prefix_of_the_limit() -> None:
    text = SENTENCE * 20_000  # 1.7 million characters
    kept = truncate_tokens(text, 250_000)
    assert text.startswith(kept) and len(kept) > WINDOW_CHARS
    assert 249_990 <= count_tokens(kept) <= 250_000
    assert truncate_tokens(text, 10) == truncate_tokens(SENTENCE, 10)


def test_split_tokens_cuts_a_word_longer_than_the_limit() -> None:
    word = "".join(random.Random(3).choices(string.ascii_letters, k=50_000))
    pieces = list(split_tokens(word, 300))
    assert "".join(pieces) == word
    assert all(count_tokens(piece) <= 300 for piece in pieces)


def test_split_tokens_keeps_words_whole_and_never_splits_a_character() -> None:
    text = "naïve café " * 500 + "日本語のテキスト" * 300 + "🙂" * 200
    pieces = list(split_tokens(text, 7))
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")
    assert all(count_tokens(piece) <= 7 for piece in pieces)
    assert all(piece.split(" ")[0] in {"naïve", "café"} for piece in pieces[:50])


FRAKTUR = "\U0001d518\U0001d52b"
"""Two letters of four UTF-8 bytes each, o200k has no token for: each is spelt by three byte tokens."""
TEXTS = [
    SENTENCE,
    "naïve café, Straße und Größe: 12.50 € inkl. MwSt.",
    "日本語のテキストと中文的句子",
    "مرحبا بكم في عيادتنا",
    "def f(x):\n    return {'a': x ** 2}  # 🙂🙂",
    (FRAKTUR + " ") * 3,
]


def test_a_count_is_the_number_of_tokens_a_truncation_keeps() -> None:
    for text in TEXTS:
        tokens = count_tokens(text)
        assert truncate_tokens(text, tokens) == text
        shorter = truncate_tokens(text, tokens - 1)
        assert text.startswith(shorter) and len(shorter) < len(text) and count_tokens(shorter) <= tokens - 1


def test_a_truncation_never_cuts_a_character_nor_goes_over_the_limit() -> None:
    assert truncate_tokens(FRAKTUR, 2) == ""  # each letter takes three byte tokens
    assert truncate_tokens(FRAKTUR, 4) == FRAKTUR[0]


def test_a_special_tokens_spelling_and_a_lone_surrogate_are_ordinary_text() -> None:
    quoted = "Our bot printed <|endoftext|> and stopped."
    assert count_tokens(quoted) > count_tokens("Our bot printed and stopped.") + 1
    assert truncate_tokens(quoted, 100) == quoted and "".join(split_tokens(quoted, 100)) == quoted
    lone = "caf\u00e9 \ud800 menu " * 3
    assert count_tokens(lone) == count_tokens(lone.replace("\ud800", "\ufffd")) > 0
    assert truncate_tokens(lone, 100) == lone and "".join(split_tokens(lone, 100)) == lone.strip()


def test_counting_does_not_import_the_bpe_openai_package() -> None:
    # Its __init__ builds dicts of two encodings' ranks and keeps them (60 MB a process, 0.9 s a start).
    code = (
        "import sys; from botyard.ingestion.tokens import count_tokens; count_tokens('hi'); print(sorted(sys.modules))"
    )
    modules = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=START
    ).stdout
    assert "'bpe_openai._bindings'" in modules and "'bpe_openai'" not in modules
