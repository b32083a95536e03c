"""Which passages of the best chunks answer the question, for the offline answerer.

Each passage (a sentence, a list item, a table row with its column names: `botyard.passages`) is scored by the
share of the question's weighted words it contains (each word weighs its idf in this chatbot, as in the relevance
decision), its heading's words counting half, plus half the cosine of its chunk with the question, so that where
no passage repeats the question's words (a paraphrase) the chunk closest in meaning speaks. The best passage is
quoted with what completes it: the sentence right after it in the same paragraph, the rest of its list, and the
few other passages that score nearly as well and are about the question themselves (`Quoted.on_subject`): a
passage of another subject never rides along on the cosine its knowledge shares with the question (the insurance
pair's "Please bring your policy number" under an answer about discounts for pensioners).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from botyard.answering.base import CitedHit
from botyard.answering.offline.asked import Kind, asked_kinds, stated_kinds
from botyard.passages import Passage, PassageKind, passages, word_count, words
from botyard.retrieval.relevance import REQUIRED, Strictness, coverage
from botyard.retrieval.terms import index_terms

MAX_PASSAGES = 3
"""Passages quoted besides a list's other items."""
MAX_ITEMS = 8
"""Items of one list quoted together."""
MAX_WORDS = 90
FOLLOWER_SHARE = 0.6
"""A further passage is quoted only if it scores at least this share of the best one."""
HEADING_SHARE = 0.5
"""What a heading's words count for the passages under it."""
MEANING_SHARE = 1.0
"""What the cosine of a passage's chunk with the question adds to the passage's score."""
ON_SUBJECT = REQUIRED[Strictness.BALANCED]
"""The evidence (cosine plus the share of the question's weighted words) at which the relevance decision takes a
chunk to be about the question (`relevance.REQUIRED`, balanced). A passage quoted beside the best one must be about
the question itself: its chunk reaches this evidence, or the passage is this close in meaning, or it has a word of
the question (or states the kind of value asked for: a price, a time). Another subject of the same business is not
far below in meaning (the insurance pair's chunk was 0.25 from a question about discounts for pensioners, its
sentences 0.2-0.35, with the bundled MiniLM), so a closeness that only says "this business" lets nothing ride
along."""
READ_CHUNKS = 512
"""Chunks whose passages are kept read per process. A read chunk of `bench/chat.py`'s knowledge (about 1 kB of text)
holds about 19 kB (its passages' term sets): 4,096 of them added 78 MB to a server's peak RSS at 10k chunks, 512 add
about 14 MB, and a small knowledge base's chunks that questions come back to all fit."""


@dataclass(frozen=True)
class Quoted:
    rank: int
    """The hit the passage comes from (best first)."""
    passage: Passage
    score: float
    on_subject: bool = True
    """Whether the passage is about the question by itself (`ON_SUBJECT`): only such a passage is quoted beside the
    best one."""


@dataclass(frozen=True)
class _Read:
    """A passage as the scoring reads it, whatever the question."""

    passage: Passage
    terms: frozenset[str]
    heading_terms: frozenset[str]
    """Its heading's terms that the passage itself lacks."""
    brevity: float
    """Very short fragments ("Day — Hours") rarely answer anything on their own: their words count half."""


@functools.lru_cache(maxsize=READ_CHUNKS)
def _read(text: str, language: str | None) -> tuple[_Read, ...]:
    """The passages of a chunk's `text` with their terms, read once per process: the best chunks of a chatbot come
    back question after question, and splitting and analysing them was half of composing an answer."""
    headings: dict[str, frozenset[str]] = {}  # the passages of a chunk share a few headings: each analysed once
    found = []
    for passage in passages(text):
        if passage.heading not in headings:
            headings[passage.heading] = frozenset(index_terms(passage.heading, language) if passage.heading else ())
        terms = frozenset(index_terms(passage.text, language))
        brevity = 0.5 if word_count(passage.text) < 3 else 1.0
        found.append(_Read(passage, terms, headings[passage.heading] - terms, brevity))
    return tuple(found)


def chunk_terms(text: str, language: str | None, *names: str) -> frozenset[str]:
    """Every term of a chunk as its passages were read (cached: the quote has just read them), with those of its
    `names` (its source's title, its heading)."""
    read = _read(text, language)
    terms = frozenset().union(*(passage.terms | passage.heading_terms for passage in read))
    return terms | frozenset(index_terms(" ".join(name for name in names if name), language)) if any(names) else terms


def _score(weights: Mapping[str, float], read: _Read, meaning: float, kinds: set[Kind]) -> float:
    own = read.terms | stated_kinds(read.passage.text, kinds) if kinds else read.terms
    matched = coverage(weights, own) + HEADING_SHARE * coverage(weights, read.heading_terms - own)
    return matched * read.brevity + MEANING_SHARE * meaning


def with_asked_kinds(weights: Mapping[str, float], question: str) -> dict[str, float]:
    """The question's term weights and, when it asks for a kind of value (`asked`), that kind as one more term,
    as heavy as its heaviest word."""
    heaviest = max(weights.values(), default=1.0)
    return dict(weights) | dict.fromkeys(asked_kinds(question), heaviest)


def candidates(
    hits: Sequence[CitedHit], weights: Mapping[str, float], shown: str = "", own: Mapping[str, float] | None = None
) -> list[Quoted]:
    """Every passage of the hits with its score. A passage the visitor was shown in the previous reply (`shown`) is
    scored by the share of the follow-up's `own` words it holds: the words borrowed from earlier turns brought it
    already, and only what is asked now may bring it again ("and if we pay monthly?" after the row of the annual
    price; "and the Komfort one?" after a reply that listed it)."""
    found: list[Quoted] = []
    kinds = {Kind(term) for term in weights if term.startswith("\x00")}
    seen = " ".join(shown.split())
    for rank, cited in enumerate(hits):
        dense = cited.hit.scores.get("dense", math.nan)
        chunk_meaning = max(dense, 0.0) if math.isfinite(dense) else 0.0
        split = _read(cited.hit.text, cited.hit.language)
        similarity = cited.hit.passage_similarity
        # Each passage's own cosine when its vectors are stored for this very text; else its chunk's.
        meanings = similarity if similarity is not None and len(similarity) == len(split) else None
        for read in split:
            position = read.passage.position
            meaning = max(meanings[position], 0.0) if meanings is not None else chunk_meaning
            again = bool(own and seen) and " ".join(read.passage.text.split()) in seen
            asked = own if again and own else weights
            on_subject = chunk_meaning + cited.hit.coverage >= ON_SUBJECT or meaning >= ON_SUBJECT
            on_subject = on_subject or _shares(asked, read, kinds)
            found.append(Quoted(rank, read.passage, _score(asked, read, meaning, kinds), on_subject))
    return found


def _shares(weights: Mapping[str, float], read: _Read, kinds: set[Kind]) -> bool:
    """Whether the passage or its heading has one of the question's words, or states the kind of value it asks."""
    if any(term in read.terms or term in read.heading_terms for term in weights):
        return True
    return bool(kinds) and bool(stated_kinds(read.passage.text, kinds))


def _similar(a: Passage, b: Passage) -> bool:
    first, second = set(words(a.text)), set(words(b.text))
    return bool(first and second) and len(first & second) / len(first | second) > 0.6


def _list_from(by_position: dict[int, Quoted], start: int, step: int) -> list[Quoted]:
    """The consecutive list items from `start` on, going `step` (1: down, -1: up)."""
    run: list[Quoted] = []
    position = start
    while position in by_position and by_position[position].passage.kind is PassageKind.ITEM:
        run.append(by_position[position])
        position += step
    return run


def _neighbours(found: list[Quoted], best: Quoted) -> list[Quoted]:
    """What completes the best passage: the rest of its list (with the sentence introducing it), the list a sentence
    introduces, or the sentence after it in the same chunk."""
    by_position = {quoted.passage.position: quoted for quoted in found if quoted.rank == best.rank}
    position = best.passage.position
    if best.passage.kind is PassageKind.ITEM:
        run = _list_from(by_position, position - 1, -1) + _list_from(by_position, position + 1, 1)
        before = by_position.get(min([position] + [quoted.passage.position for quoted in run]) - 1)
        if before is not None and before.passage.kind is PassageKind.SENTENCE:
            run.append(before)  # the sentence right above a list introduces it
        return sorted(run, key=lambda quoted: quoted.passage.position)[: MAX_ITEMS - 1]
    if best.passage.kind is PassageKind.SENTENCE and (items := _list_from(by_position, position + 1, 1)):
        return items[:MAX_ITEMS]
    follower = by_position.get(position + 1)
    if follower is not None and follower.passage.kind is best.passage.kind is PassageKind.SENTENCE:
        return [follower]
    return []


def _asks(passage: Passage) -> bool:
    """Whether the passage is a question (a sentence ending in a question mark, Latin or full-width)."""
    return passage.kind is PassageKind.SENTENCE and passage.text.rstrip().endswith(("?", "\uff1f"))


def _answer_after(found: list[Quoted], question: Quoted) -> list[Quoted]:
    """The passages right after `question` in its chunk, up to the next question or `MAX_WORDS`: its answer."""
    by_position = {quoted.passage.position: quoted for quoted in found if quoted.rank == question.rank}
    answer: list[Quoted] = []
    total = 0
    position = question.passage.position + 1
    while position in by_position and not _asks(by_position[position].passage):
        total += word_count(by_position[position].passage.text)
        if answer and total > MAX_WORDS:
            break
        answer.append(by_position[position])
        position += 1
    return answer


def ranked(found: list[Quoted]) -> list[Quoted]:
    """Best first; of equals, the better-ranked chunk, then the earlier passage."""
    return sorted(found, key=lambda quoted: (-quoted.score, quoted.rank, quoted.passage.position))


def select(found: list[Quoted]) -> list[Quoted]:
    """The passages to quote: the best with what completes it, then the few others that score nearly as well, and
    the list any of them announces (it ends with a colon); the best one's chunk first, each chunk in its order."""
    ranking = ranked(found)
    best = ranking[0]
    answer = _answer_after(found, best) if _asks(best.passage) else []
    if answer:  # a question of the knowledge's own (an FAQ, "No time to come in?") is answered by what follows it
        best = answer[0]
    chosen = [best]
    total = word_count(best.passage.text)
    for neighbour in answer[1:] or _neighbours(found, best):
        length = word_count(neighbour.passage.text)
        if total + length <= MAX_WORDS or neighbour.passage.kind is PassageKind.ITEM:
            chosen.append(neighbour)
            total += length
    completed = len(chosen)
    others = 0
    for quoted in ranking[1:]:
        if others == MAX_PASSAGES - 1 or quoted.score < FOLLOWER_SHARE * best.score or quoted.score <= 0:
            break
        length = word_count(quoted.passage.text)
        if quoted in chosen or total + length > MAX_WORDS or _asks(quoted.passage) or not quoted.on_subject:
            continue
        if any(_similar(quoted.passage, c.passage) for c in chosen):
            continue
        chosen.append(quoted)
        others += 1
        total += length
    for quoted in list(chosen):  # a sentence that announces what follows ("You can export to:") brings it
        if quoted.passage.text.rstrip().endswith(":"):
            chosen.extend(item for item in _neighbours(found, quoted) if item not in chosen)
    # The best passage leads with what completes it, in their own order; the others follow as their hits rank. A
    # passage that only scored nearly as well once led the answer ("Helmets are included free of charge with every
    # rental." before the price asked for, "Full service: 89 euros" before the e-bike service asked about).
    lead = {id(quoted) for quoted in chosen[:completed]}
    return sorted(chosen, key=lambda quoted: (id(quoted) not in lead, quoted.rank, quoted.passage.position))
