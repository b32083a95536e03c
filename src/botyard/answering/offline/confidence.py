"""How sure an answer is that the knowledge covers the question, decided before the reply streams, and why.

Three outcomes, stored as the message's `meta_json.confidence`:

- `high`: the passages quoted name what the question asks about;
- `low` (unsure): something related was found, but the question is mostly about something the knowledge does not
  name (words no source uses: "gift cards" at a bike shop);
- `none`: no answer (the relevance decision found nothing, or a model said it has none).

The offline answerer reads the question's own words (not those a follow-up borrowed from earlier turns) as the index
does, each weighted by how specific it is in this chatbot (its idf), and looks for them in the chunks it quotes
(their text, heading and source title). A word it does not find there is *lacking*; a lacking word no chunk of the
chatbot uses is *unnamed*. The decision says which words, so the reply can name them ("I couldn't find anything
about student") and the owner can see why (`meta_json.doubt`).

The answer is unsure when the unnamed words carry at least half of the question's weight: the question is mostly
about something the knowledge never names ("Is there a *student* discount?" where only other discounts are). The
passage's closeness in meaning does not vouch for it: within one business's knowledge, a passage about something
else is as close to such a question as a paraphrase is to its answer (measured: letting passages at the next
stricter level's closeness vouch cut the unsure covered answers by a third but tripled the confident uncovered
ones). A word lacking from the quote but used elsewhere in the knowledge is reported, never decisive: most are the
question's own wording of what the passage says ("cost" for "price"); counting them made half of the covered answers
unsure, so a word used in another sense ("used bikes" where "used" is only in "can be used for") is not caught.

Two readings keep a paraphrase from looking like another subject (`docs/answers.md`): a word of the question's
language's wide stop-word list ("something", "near") counts as found, and two words the knowledge uses written as
one ("highchairs", "Mittwochnachmittag") are not unnamed (`LexicalIndex.unseen`).

Measured on the public answer probes (`bench/answers.py`): the uncovered questions answered confidently fell from
32% to 10%; 17% of the covered questions answered come out unsure (their quote still follows the hedge).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from botyard.retrieval.language import wide_stopwords


class Confidence(StrEnum):
    HIGH = "high"
    LOW = "low"
    NONE = "none"


@dataclass(frozen=True)
class Judgement:
    confidence: Confidence
    lacking: tuple[str, ...] = ()
    """The question's words (index terms) that the quoted chunks do not hold, most specific first."""
    unnamed: frozenset[str] = field(default_factory=frozenset)
    """Of `lacking`, those no chunk of the chatbot uses."""
    lacking_share: float = 0.0
    """The share of the question's word weight that is lacking."""

    def meta(self) -> dict[str, Any]:
        """`meta_json`'s `confidence`, and with doubt `doubt`: the lacking words, those the knowledge never uses."""
        meta: dict[str, Any] = {"confidence": self.confidence.value}
        if self.lacking:
            meta["doubt"] = {
                "lacking": list(self.lacking),
                "unnamed": [term for term in self.lacking if term in self.unnamed],
                "lacking_share": round(self.lacking_share, 3),
            }
        return meta


HIGH = Judgement(Confidence.HIGH)
NONE = Judgement(Confidence.NONE)


def judge(
    weights: Mapping[str, float],
    own: Set[str],
    unseen: Set[str],
    quoted: Iterable[Set[str]],
) -> Judgement:
    """The confidence of a reply that quotes chunks whose terms are `quoted`, for a question whose content terms
    weigh `weights` (idf), of which `own` are the question's own words and `unseen` no chunk uses."""
    asked = {term: weight for term, weight in weights.items() if term in own}
    total = sum(asked.values())
    if total <= 0:
        return HIGH
    held: set[str] = set()
    for terms in quoted:
        held |= terms
    lacking = sorted((term for term in asked if term not in held), key=lambda term: -asked[term])
    if not lacking:
        return HIGH
    # The question's known words: those the knowledge uses, and the stop words of the lists ("多少").
    known = (asked.keys() - unseen) | (own & wide_stopwords())
    unnamed = frozenset(term for term in lacking if term in unseen and not _straddles(term, known))
    unnamed_share = sum(asked[term] for term in unnamed) / total
    unsure = unnamed_share >= UNNAMED_SHARE
    share = sum(asked[term] for term in lacking) / total
    return Judgement(Confidence.LOW if unsure else Confidence.HIGH, tuple(lacking), unnamed, share)


def _straddles(term: str, known: Iterable[str]) -> bool:
    """Whether `term` is a pair of Chinese or Japanese characters that shares a character with a known word of the
    question: the index reads those scripts in overlapping pairs, so the pair that straddles two words ("少度" in
    "多少度") is no word of its own, and no chunk could have named it."""
    return bool(_CJK.search(term)) and any(other != term and set(term) & set(other) for other in known)


_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")

UNNAMED_SHARE = 0.5
"""At least half of what the question asks, by weight, is named nowhere in the knowledge."""
