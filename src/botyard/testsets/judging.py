"""Whether a reply passes a test case, judged as the answer probes judge (`../shared/data/answers/probe.py`), so a
set made from a probe's questions gives its verdicts:

- a case with expected texts passes when the reply holds one of them, compared after a normalisation that forgives
  what does not change a fact: case, Unicode forms, quotes, Arabic letter variants and digits, spaces and dashes,
  digit grouping ("1,200" is "1200") and empty decimals ("62.00" is "62");
- a case that must say it does not know passes when the reply is the no-answer reply or an unsure one (confidence
  `none` or `low`): the visitor is told the knowledge may not cover it.
"""

from __future__ import annotations

import re
import unicodedata

_QUOTES = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u00b4": "'", "`": "'"}
    | {"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"'}
)
_ARABIC_LETTERS = str.maketrans(
    {"\u0623": "\u0627", "\u0625": "\u0627", "\u0622": "\u0627", "\u0671": "\u0627", "\u0649": "\u064a"}
    | {"\u0629": "\u0647", "\u066a": "%", "\u066b": ".", "\u066c": ",", "\u060c": ","}
    | {0x0660 + digit: str(digit) for digit in range(10)}
    | {0x06F0 + digit: str(digit) for digit in range(10)}
)
_ARABIC_MARKS = re.compile("[\u064b-\u065f\u0670\u0640]")
_EMPTY_DECIMALS = re.compile(r"(?<=\d)[.,]00(?!\d)")
_DIGIT_GROUPING = re.compile(r"(?<=\d)[.,' \u00a0\u202f\u2009](?=\d)")
_SPACES_AND_DASHES = re.compile(r"[\s\-\u2010-\u2015\u2212]")
REFUSING = frozenset({"none", "low"})


def normalised(text: str) -> str:
    """The form an expected text and a reply are compared in."""
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_QUOTES).translate(_ARABIC_LETTERS)
    folded = _ARABIC_MARKS.sub("", folded)
    folded = _DIGIT_GROUPING.sub("", _EMPTY_DECIMALS.sub("", folded))
    return _SPACES_AND_DASHES.sub("", folded)


def passes(reply: str, confidence: str | None, refused: bool, expect_any: list[str], expect_refuse: bool) -> bool:
    if expect_refuse:
        return refused or confidence in REFUSING
    found = normalised(reply)
    return any((needle := normalised(expected)) and needle in found for expected in expect_any)
