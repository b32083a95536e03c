"""The offline answerer (the default): no network, no model; a short answer built from the retrieved text.

It answers the way a person skimming the reference documents would: when the best match is a Q&A pair whose
question is the one asked, it gives that pair's answer; otherwise it quotes the passages of the best chunks that
answer the question (`quote`: sentences, a list as a list, a table row as its cells with their column names), in
their original order, and cites each source it quotes once, with the `[X.Y]` of the first chunk it quotes from it.
Headings, table rules and Markdown syntax are never quoted, and the answer stays within a few passages, so it
reads as a reply rather than as a dump of chunks. The answer is streamed in groups of a few words.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from botyard.answering.base import AnswerEvent, AnswerRequest, CitedHit, Finished, Turn
from botyard.answering.context import search_query
from botyard.answering.offline.asked import Kind, asked_kinds, asking_words, stated_kinds
from botyard.answering.offline.confidence import NONE, Confidence, Judgement, judge
from botyard.answering.offline.quote import (
    FOLLOWER_SHARE,
    Quoted,
    candidates,
    chunk_terms,
    ranked,
    select,
    with_asked_kinds,
)
from botyard.answering.text import content_words, word_groups
from botyard.i18n import offer_person, talk_to_person, unsure
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import TextDelta, Usage
from botyard.models import SourceType
from botyard.passages import PassageKind, passages
from botyard.retrieval.base import QUOTED_HITS
from botyard.retrieval.language import wording_words
from botyard.retrieval.terms import index_terms

MAX_WORDS = 90
WORDS_PER_DELTA = 6
"""Words per streamed piece: still a progressive stream to read, and half the per-piece cost (an event, a socket
write) of three-word pieces, which showed in the profile of the throughput benchmark."""


class OfflineAnswerer:
    """Composes the answer from the hits; see the module docstring."""

    uses_tools = False
    model_decides = False

    name = "offline"

    async def search_query(self, query: str, history: Sequence[Turn], model: str) -> str:
        del model  # no model: the last turns' key terms stand in for a rewritten question
        return search_query(query, history)

    async def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        reply = composed(request)
        judgement = _judged(request, reply)
        text = _framed(reply.text, judgement, request)
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
        meta = {"answerer": self.name, **judgement.meta(), "quoted_sources": _quoted_sources(reply)}
        if _offers_person(reply.text, judgement, request):  # the offer's choice, a button where a channel shows one
            meta["choices"] = [talk_to_person(request.language)]
        yield Finished("stop", usage, meta=meta)


@dataclass(frozen=True)
class Composed:
    text: str
    quoted: tuple[CitedHit, ...]
    """The hits the text quotes."""


def _quoted_sources(reply: Composed) -> list[dict[str, str]]:
    """`meta_json.quoted_sources`: the sources the reply quotes, in order (`data_source_uuid`, `type`), whether or
    not citations are shown: what the owner's review offers to edit (a Q&A pair that answered badly)."""
    found = {item.hit.data_source_uuid: item.hit.source_type for item in reply.quoted}
    return [{"data_source_uuid": uuid, "type": type_} for uuid, type_ in found.items()]


def compose(request: AnswerRequest) -> str:
    """The answer text for `request` ("" when there are no hits: the caller answers its no-knowledge message)."""
    return composed(request).text


def composed(request: AnswerRequest) -> Composed:
    """The answer text for `request`, and the hits it quotes."""
    hits = request.hits[:QUOTED_HITS]  # those whose passages the retriever scored against the question
    if not hits:
        return Composed("", ())
    weights = _own_words_first(
        request.term_weights or _plain_weights(search_query(request.query, request.history)), request.query
    )
    shown = request.history[-1].response if request.history else ""
    own = with_asked_kinds(_own_words(weights, request.query), request.query) if shown else None
    found = candidates(hits, with_asked_kinds(weights, request.query), shown, own)
    if not found:
        return Composed(_with_marker(_trim(hits[0].hit.text), hits[0].marker, request.show_citations), (hits[0],))
    pair = _asked_pair(ranked(found), hits)
    if pair is not None:
        if not _points_elsewhere(pair, found, hits, asked_kinds(request.query)):
            return Composed(_with_marker(_qa_answer(pair), pair.marker, request.show_citations), (pair,))
        found = [quoted for quoted in found if hits[quoted.rank] is not pair]  # the fact it points to answers
    chosen = select(found)
    quoted = tuple(hits[rank] for rank in dict.fromkeys(quoted.rank for quoted in chosen))
    return Composed(_render(chosen, hits, request.show_citations), quoted)


def _judged(request: AnswerRequest, reply: Composed) -> Judgement:
    """How sure the reply is that it answers (`confidence`): the question's own words against the quoted chunks'."""
    if not reply.text:
        return NONE
    own = index_terms(request.query)
    quoted = [
        chunk_terms(item.hit.text, item.hit.language, item.hit.source_title, item.hit.heading) for item in reply.quoted
    ]
    # "How long ...?" is answered by a quote that states a length of time, whether or not it says "long".
    stated = stated_kinds(reply.text, asked_kinds(request.query))
    answered = index_terms(asking_words(request.query, stated)) if stated else set()
    wording = _wording_terms(request.query, request.language)
    return judge(request.term_weights, own, request.unseen_terms, [*quoted, answered, wording])


def _wording_terms(query: str, language: str) -> set[str]:
    """The index terms of the question's words that its language's wide stop-word list holds ("Is there
    *something* ...", "*near*", "*often*"): how it is asked, not what about, so never what it lacks."""
    wording = wording_words(language)
    return index_terms(" ".join(word for word in _WORD.findall(query) if word.casefold() in wording))


def _framed(text: str, judgement: Judgement, request: AnswerRequest) -> str:
    """An unsure reply says so first, in the visitor's language, naming what it found nothing about, and offers a
    person when one can be asked for; the quote stays as written."""
    if judgement.confidence is not Confidence.LOW or not text:
        return text
    topic = _as_written(request.query, set(judgement.lacking))
    parts = [unsure(request.language, topic), text]
    if _offers_person(text, judgement, request):
        parts.append(offer_person(request.language))
    return "\n\n".join(parts)


def _offers_person(text: str, judgement: Judgement, request: AnswerRequest) -> bool:
    """Whether the reply offers a person: an unsure one, when a person can be asked for."""
    return judgement.confidence is Confidence.LOW and bool(text) and request.offers_person


_WORD = re.compile(r"\w+(?:['\u2019-]\w+)*")
"""A word of the question as written (case kept; `passages.words` lower-cases)."""
_UNSPACED = re.compile("[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
MAX_NAMED_WORDS = 3
"""An unsure reply names at most this many lacking words; more say the question is about something else."""
MAX_NAMED_LENGTH = 40
"""Characters of the named words at most (a run of Chinese is one "word": then the reply names none)."""


def _as_written(query: str, terms: set[str]) -> str | None:
    """The question's words that are lacking ones, as written and in their order; words apart in the question are
    named apart ("popped, fall, fast"). None when there are too many, or when a word holds more than lacking terms
    (a run of Chinese is one "word": the whole question, which names nothing)."""
    groups: list[list[str]] = []
    previous = -2
    for index, word in enumerate(_WORD.findall(query)):
        found = index_terms(word)
        if not found & terms:
            continue
        if _UNSPACED.search(word) and not found <= terms:  # a run of Chinese or Japanese, not one word
            return None
        if index == previous + 1:
            groups[-1].append(word)
        else:
            groups.append([word])
        previous = index
    named = [" ".join(dict.fromkeys(group)) for group in groups]
    topic = ", ".join(dict.fromkeys(named))
    words = sum(len(group) for group in groups)
    return topic if 0 < words <= MAX_NAMED_WORDS and len(topic) <= MAX_NAMED_LENGTH else None


def _asked_pair(ranking: list[Quoted], hits: Sequence[CitedHit]) -> CitedHit | None:
    """The Q&A pair whose question is the one asked, when the best passage is one of its own: its question, or a
    sentence of its answer while its question scores nearly as well (`FOLLOWER_SHARE`). A pair whose answer merely
    shares the question's words ("the name and address of your previous practice" for "the address of your Northgate
    practice?", asked of a pair about getting records) is quoted like any text, beside what else answers."""
    best = ranking[0]
    cited = hits[best.rank]
    if cited.hit.source_type != SourceType.QA:
        return None
    if _is_question_of(best.passage.text, cited):
        return cited
    asked = [q for q in ranking if q.rank == best.rank and _is_question_of(q.passage.text, cited)]
    return cited if asked and asked[0].score >= FOLLOWER_SHARE * best.score else None


def _points_elsewhere(pair: CitedHit, found: list[Quoted], hits: Sequence[CitedHit], kinds: set[Kind]) -> bool:
    """Whether the pair's answer leaves out what the question asks for (a price, a length of time) while another
    passage found states it: "See our rental terms for prices." gives way to the terms' "35 euros a day"."""
    if not kinds or stated_kinds(_qa_answer(pair), kinds):
        return False
    return any(hits[quoted.rank] is not pair and stated_kinds(quoted.passage.text, kinds) for quoted in found)


def _is_question_of(text: str, cited: CitedHit) -> bool:
    """Whether the passage `text` is (one of the sentences of) the pair's question, not a piece of it ("No.")."""
    question = cited.hit.source_meta.get("question")
    if not isinstance(question, str) or not question.strip():
        question, _, _ = cited.hit.text.partition("\n\n")  # a Q&A chunk is "question\n\nanswer"
    return text.strip() in {passage.text.strip() for passage in passages(question)}


BORROWED_SHARE = 0.5
"""What a term a follow-up borrowed from earlier turns weighs next to its own words ("and if we pay monthly?" after
a question about annual billing: "monthly" says what is asked now, "annual" only what it is about)."""


def _own_words_first(weights: dict[str, float], query: str) -> dict[str, float]:
    own = index_terms(query)
    return {term: weight if term in own else BORROWED_SHARE * weight for term, weight in weights.items()}


def _own_words(weights: dict[str, float], query: str) -> dict[str, float]:
    """The weights of the question's own words, without those a follow-up borrowed from earlier turns."""
    own = index_terms(query)
    return {term: weight for term, weight in weights.items() if term in own}


def _plain_weights(query: str) -> dict[str, float]:
    """Equal weights for the query's content terms, when retrieval gave none (callers outside the pipeline)."""
    return dict.fromkeys(index_terms(" ".join(content_words(query)) or query), 1.0)


def _qa_answer(cited: CitedHit) -> str:
    answer = cited.hit.source_meta.get("answer")
    if isinstance(answer, str) and answer.strip():
        return answer.strip()
    _, _, rest = cited.hit.text.partition("\n\n")  # a Q&A chunk is "question\n\nanswer"
    return (rest or cited.hit.text).strip()


def _render(chosen: list[Quoted], hits: Sequence[CitedHit], show_citations: bool) -> str:
    """The chosen passages as prose, a list's items as a list, each source cited once after its last passage."""
    first_marker: dict[str, str] = {}
    for quoted in chosen:
        first_marker.setdefault(hits[quoted.rank].hit.data_source_uuid, hits[quoted.rank].marker)
    listed = sum(quoted.passage.kind is PassageKind.ITEM for quoted in chosen) >= 2
    segments: list[tuple[bool, str]] = []  # (on a line of its own, text)
    for index, quoted in enumerate(chosen):
        source = hits[quoted.rank].hit.data_source_uuid
        piece = _trim(quoted.passage.text)
        following = chosen[index + 1] if index + 1 < len(chosen) else None
        if following is None or hits[following.rank].hit.data_source_uuid != source:
            piece = _with_marker(piece, first_marker[source], show_citations)
        item = listed and quoted.passage.kind is PassageKind.ITEM
        line = item or quoted.passage.kind is PassageKind.ROW  # a table row is a fact of its own: one a line
        segments.append((line, f"- {piece}" if item else piece))
    text = segments[0][1]
    for (was_line, _), (line, piece) in itertools.pairwise(segments):
        text += ("\n" if was_line or line else " ") + piece
    return text


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
