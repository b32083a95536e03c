"""The offline answerer (the default): no network, no model; a short answer built from the retrieved text.

It answers the way a person skimming the reference documents would: when the best match is a Q&A pair whose
question is the one asked, it gives that pair's answer; otherwise it quotes the few sentences of the best chunks
that talk about the question's terms, in their original order, and marks each chunk it quotes with its `[X.Y]`.
Headings, tables rules and Markdown syntax are never quoted, and the answer stays within a few sentences, so it
reads as a reply rather than as a dump of chunks. The answer is streamed in groups of a few words.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from botyard.answering.base import AnswerEvent, AnswerRequest, CitedHit, Finished, Turn
from botyard.answering.context import search_query
from botyard.answering.text import Sentence, key_terms, sentences, word_groups, words
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import TextDelta, Usage

MAX_CHUNKS = 4
"""Only the best few chunks are read: lower-ranked ones are more often off the point."""
MAX_SENTENCES = 3
MAX_WORDS = 90
FOLLOWER_SHARE = 0.5
"""A further sentence is added only if it scores at least this share of the best one."""
QA_MATCH = 0.5
"""A Q&A pair answers when at least this share of its question's terms are in the query (or it ranks first)."""
WORDS_PER_DELTA = 6
"""Words per streamed piece: still a progressive stream to read, and half the per-piece cost (an event, a socket
write) of three-word pieces, which showed in the profile of the throughput benchmark."""


@dataclass(frozen=True)
class _Candidate:
    rank: int
    sentence: Sentence
    score: float
    terms: frozenset[str]


class OfflineAnswerer:
    """Composes the answer from the hits; see the module docstring."""

    uses_tools = False
    model_decides = False

    name = "offline"

    async def search_query(self, query: str, history: Sequence[Turn], model: str) -> str:
        del model  # no model: the last turns' key terms stand in for a rewritten question
        return search_query(query, history)

    async def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        text = compose(request)
        for group in word_groups(text, WORDS_PER_DELTA):
            yield TextDelta(group)
            await asyncio.sleep(0)  # let the response send each group (and notice a client that left)
        prompt = [request.agent_prompt, request.query, *(f"{turn.query}\n{turn.response}" for turn in request.history)]
        # The chunks' counts were made at ingestion: counting 8 chunks again cost more CPU than composing the answer.
        chunk_tokens = sum(item.hit.tokens or count_tokens(item.hit.text) for item in request.hits)
        usage = Usage(
            prompt_tokens=max(1, chunk_tokens + sum(count_tokens(part) for part in prompt)),
            completion_tokens=max(1, count_tokens(text)),
        )
        yield Finished("stop", usage, meta={"answerer": self.name})


def compose(request: AnswerRequest) -> str:
    """The answer text for `request` ("" when there are no hits: the caller answers its no-knowledge message)."""
    hits = request.hits[:MAX_CHUNKS]
    if not hits:
        return ""
    query_terms = key_terms(search_query(request.query, request.history))
    qa = _matching_qa(hits, query_terms)
    if qa is not None:
        return _with_marker(_qa_answer(qa), qa.marker, request.show_citations)
    return _from_sentences(hits, query_terms, request.show_citations)


def _qa_answer(cited: CitedHit) -> str:
    answer = cited.hit.source_meta.get("answer")
    if isinstance(answer, str) and answer.strip():
        return answer.strip()
    _, _, rest = cited.hit.text.partition("\n\n")  # a Q&A chunk is "question\n\nanswer"
    return (rest or cited.hit.text).strip()


def _matching_qa(hits: Sequence[CitedHit], query_terms: set[str]) -> CitedHit | None:
    """The Q&A pair that answers: the top hit if it is one, else the pair whose question best covers the query."""
    if hits[0].hit.source_type == "qa":
        return hits[0]
    best: tuple[float, CitedHit] | None = None
    for cited in hits:
        if cited.hit.source_type != "qa":
            continue
        question = cited.hit.source_meta.get("question")
        question_terms = key_terms(question if isinstance(question, str) else cited.hit.text.split("\n\n")[0])
        if not question_terms:
            continue
        share = len(question_terms & query_terms) / len(question_terms)
        if share >= QA_MATCH and (best is None or share > best[0]):
            best = (share, cited)
    return best[1] if best else None


def _candidates(hits: Sequence[CitedHit], query_terms: set[str]) -> list[_Candidate]:
    found: list[_Candidate] = []
    for rank, cited in enumerate(hits):
        for sentence in sentences(cited.hit.text):
            terms = frozenset(key_terms(sentence.text))
            matched = len(terms & query_terms)
            heading_bonus = 0.25 * len(key_terms(sentence.heading) & query_terms)
            # Earlier-ranked chunks win ties; very short fragments ("Day — Hours") rarely answer anything.
            brevity = 0.5 if len(words(sentence.text)) < 4 else 1.0
            score = (matched + heading_bonus) * brevity / (1 + 0.15 * rank)
            found.append(_Candidate(rank, sentence, score, terms))
    return found


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) > 0.6


def _select(candidates: list[_Candidate]) -> list[_Candidate]:
    ranked = sorted(candidates, key=lambda c: (-c.score, c.rank, c.sentence.position))
    best = ranked[0]
    if best.score <= 0:
        # Nothing names a query term (retrieval matched on meaning alone): the best chunk's opening sentences.
        return [c for c in candidates if c.rank == best.rank][:2]
    chosen = [best]
    total = len(words(best.sentence.text))
    for candidate in ranked[1:]:
        if len(chosen) == MAX_SENTENCES or candidate.score < FOLLOWER_SHARE * best.score:
            break
        length = len(words(candidate.sentence.text))
        if total + length > MAX_WORDS or any(_similar(candidate.terms, c.terms) for c in chosen):
            continue
        chosen.append(candidate)
        total += length
    # A sentence right after the best one in the same chunk often completes it ("On Saturdays it opens at ten.").
    follower = next(
        (c for c in candidates if c.rank == best.rank and c.sentence.position == best.sentence.position + 1), None
    )
    if (
        follower is not None
        and follower not in chosen
        and len(chosen) < MAX_SENTENCES
        and follower.score > 0
        and total + len(words(follower.sentence.text)) <= MAX_WORDS
    ):
        chosen.append(follower)
    return sorted(chosen, key=lambda c: (c.rank, c.sentence.position))


def _from_sentences(hits: Sequence[CitedHit], query_terms: set[str], show_citations: bool) -> str:
    candidates = _candidates(hits, query_terms)
    if not candidates:
        return _with_marker(_trim(hits[0].hit.text), hits[0].marker, show_citations)
    chosen = _select(candidates)
    parts: list[str] = []
    for index, candidate in enumerate(chosen):
        text = _trim(candidate.sentence.text)
        last_of_chunk = index + 1 == len(chosen) or chosen[index + 1].rank != candidate.rank
        if last_of_chunk:
            text = _with_marker(text, hits[candidate.rank].marker, show_citations)
        parts.append(text)
    return " ".join(parts)


def _trim(text: str) -> str:
    """At most `MAX_WORDS` words, cut at a word boundary."""
    tokens = text.split()
    return text if len(tokens) <= MAX_WORDS else " ".join(tokens[:MAX_WORDS]) + " …"


def _with_marker(text: str, marker: str, show_citations: bool) -> str:
    """`text` with ` [X.Y]` before its closing punctuation (`... Friday [1.1].`), when citations are shown."""
    if not show_citations:
        return text
    stripped = text.rstrip()
    end = len(stripped)
    while end > 0 and stripped[end - 1] in ".!?…":
        end -= 1
    if "\n" in stripped:  # a multi-line answer (a list): the marker goes on the last line, after its text
        return f"{stripped} [{marker}]"
    return f"{stripped[:end]} [{marker}]{stripped[end:]}"
