"""Which question pairs the review queue's grouping joins, before and after its word conditions (issue 46, item 12).

Run: `python bench/review_grouping.py [../shared/data]`, with the bundled embedder (the pair of MiniLM and USE-m3).
A pair "groups" when the rule joins its two questions; before: the vectors of what was searched at a cosine of at
least 0.4 (`grouping.ON_ONE_SUBJECT`); after: `grouping.group` (both readings on one subject, and a shared content
word in one language). The sets are public and none is the answer probes the service is judged on:

- routing set, per setup: its on-topic, near-miss and frustrated cases and its conversations' first turns, all
  different questions (no pair should group); its requests for a person in other words (the same request); each
  conversation's second turn searched with the first's words (`answering.context.search_query`), against every other
  question of its setup, the first turn included (none should group);
- XQuAD: 240 different questions per language (none should group), and each English one with its translation (all
  should).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from botyard.answering.base import Turn
from botyard.answering.context import search_query
from botyard.embedding.base import Vectors, similarities
from botyard.embedding.minilm import MiniLMEmbedder
from botyard.embedding.pair import USE_SCALE, PairEmbedder
from botyard.embedding.use import UseEmbedder
from botyard.unanswered.grouping import ON_ONE_SUBJECT, group

EMBEDDER = PairEmbedder(MiniLMEmbedder(), UseEmbedder(), USE_SCALE)
LANGUAGES = ("en", "de", "zh")
TRANSLATED = ("de", "es", "zh")


@dataclass(frozen=True)
class Question:
    asked: str
    searched: str


_vectors: dict[str, Vectors] = {}


async def vector(text: str) -> Vectors:
    if text not in _vectors:
        _vectors[text] = await EMBEDDER.embed_query(text)
    return _vectors[text]


def unit(found: Vectors) -> Vectors:
    """Each model's part at unit length: questions compared on their own model's scale, as `grouping` does."""
    scaled = np.array(found, dtype=np.float32, copy=True)
    start = 0
    for width in EMBEDDER.parts:
        length = float(np.linalg.norm(scaled[start : start + width]))
        if length > 0:
            scaled[start : start + width] /= length
        start += width
    return scaled


async def joined(first: Question, second: Question) -> tuple[bool, bool]:
    """Whether the rule before and the rule now put the two questions in one group."""
    searched = [await vector(first.searched), await vector(second.searched)]
    before = float(similarities(unit(searched[0])[None], unit(searched[1])[None], EMBEDDER.parts)[0, 0])
    own = [await vector(each.asked) if each.asked != each.searched else None for each in (first, second)]
    texts, meant = [first.asked, second.asked], [first.searched, second.searched]
    now = len(group(texts, searched, EMBEDDER.parts, meant, own)) == 1
    return before >= ON_ONE_SUBJECT, now


async def count(name: str, pairs: Iterable[tuple[Question, Question]]) -> None:
    found = [await joined(first, second) for first, second in pairs]
    before, now = sum(b for b, _ in found), sum(n for _, n in found)
    print(f"{name}: {len(found)} pairs, grouped before {before}, now {now}")


def plain(texts: Iterable[str]) -> list[Question]:
    return [Question(text, text) for text in texts]


async def routing(data: Path) -> None:
    setups = json.loads((data / "routing" / "routing_public.json").read_text())["setups"]
    distinct: list[tuple[Question, Question]] = []
    person: list[tuple[Question, Question]] = []
    follow: list[tuple[Question, Question]] = []
    for setup in setups:
        kinds = ("on-topic", "near-miss", "frustrated")
        questions = plain(case["query"] for case in setup["cases"] if case["kind"] in kinds)
        questions += plain(conversation["turns"][0] for conversation in setup["conversations"])
        distinct += list(itertools.combinations(questions, 2))
        person += itertools.combinations(plain(c["query"] for c in setup["cases"] if c["kind"] == "human"), 2)
        for conversation in setup["conversations"]:
            first, second = conversation["turns"]
            later = Question(second, search_query(second, [Turn(first, "")]))
            follow += [(later, other) for other in questions]
    await count("routing, different questions of one business", distinct)
    await count("routing, requests for a person in other words", person)
    await count("routing, a follow-up and another question of its business", follow)


def xquad(data: Path, language: str) -> dict[str, str]:
    lines = (data / "retrieval" / f"xquad-{language}" / "queries.jsonl").read_text().splitlines()
    return {row["_id"]: row["text"] for row in map(json.loads, lines)}


async def main(data: Path) -> None:
    await routing(data)
    for language in LANGUAGES:
        await count(
            f"xquad-{language}, different questions", itertools.combinations(plain(xquad(data, language).values()), 2)
        )
    english = xquad(data, "en")
    for language in TRANSLATED:
        other = xquad(data, language)
        pairs = [
            (Question(english[key], english[key]), Question(other[key], other[key])) for key in english if key in other
        ]
        await count(f"xquad en-{language}, a question and its translation", pairs)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / ".." / "shared" / "data"))
