"""The supervisor's decision, offline: which routed agent takes a query, from the agents' names, descriptions and
types, and what the message does (`evidence`).

The default agent is the first user-facing one. The other types answer only on evidence that the message is their
job, and the default (or the user-facing agent that answered the previous query) answers whenever the evidence is
missing or weak:

1. Spam rules come first: with an enabled spam-defense agent, a link flood, a repeated-character or repeated-word
   flood, or an oversize query goes to it at once (`spam_reason`).
2. Small talk (a short message nearest to greetings, thanks, goodbyes, compliments or "ok") goes to the default
   agent, with a friendly reply instead of a search.
3. The human-escalation agent, when the message or one of its clauses asks for a person (nearest to that intent,
   clearly ahead of the others: a complaint or a question that mentions staff is nearer to its own intent).
4. The spam-defense agent, when the message or a clause is spam, abuse or an injection attempt.
5. A pre-canned agent, when a clause is about its description's topic, and clearly more than about any user-facing
   agent's.
6. Otherwise a user-facing agent: each scores its closeness to the query, plus `BIAS_WEIGHT` x its `bias`, plus
   `STICKNESS_WEIGHT` x its `stickness` if it answered the previous query. The default agent (or the one that
   answered the previous query) keeps the query unless another scores clearly more (`SWITCH_MARGIN`,
   `FOLLOW_UP_MARGIN`): a vague follow-up stays where the conversation is.

Without an embedder, closeness is the cosine of the key terms' stems, and an agent of another type needs more of the
query's key terms than every user-facing agent (and a query of at least two of them).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from botyard.answering.routing.evidence import Reading, UnitIntent
from botyard.answering.routing.intents import UNWANTED, Intent, friendly_reply
from botyard.answering.text import content_words, key_terms, words
from botyard.models.kinds import AgentType

BIAS_WEIGHT = 0.25
"""A bias of 1 is worth this much cosine similarity (MiniLM puts a question about 0.2-0.4 closer to a matching
description than to an unrelated one)."""
STICKNESS_WEIGHT = 0.25
SWITCH_MARGIN = 0.05
"""How much more another user-facing agent must score than the default one to take a new conversation's query."""
FOLLOW_UP_MARGIN = 0.2
"""...and than the agent that answered the previous query: a follow-up is usually vague ("how much is it?")."""
UNWANTED_FLOOR = 0.4
"""A unit is spam, abuse or an injection only when this close to one of its prototypes (unrelated short texts are
0.1-0.35 apart)..."""
UNWANTED_LEAD = 0.1
"""...and this much closer to it than to any other intent."""
PERSON_FLOOR = 0.35
PERSON_LEAD = 0.05
"""A request for a person needs less: it is often one clause of a longer message, and nearer to ordinary questions
than spam is (the other intents are then the safeguard: a question or a complaint that mentions staff is nearer to
its own intent)."""
SMALL_TALK_FLOOR = 0.5
SMALL_TALK_LEAD = 0.1
"""Small talk asks nothing: it must be this much closer to its prototypes than to any ordinary question (or agent's
facet), as spam must lead the other intents. "How is the weather today?" is nearly as close to "good day" as to a
question, and it asks something; a greeting or thanks is far nearer its own kind (0.2-0.7 ahead)."""
SMALL_TALK_WORDS = 8
TOPIC_FLOOR = 0.4
"""A pre-canned agent's description must be at least this close to a clause..."""
TOPIC_LEAD = 0.1
"""...and this much closer than any user-facing agent's."""
SPAM_MAX_CHARS = 2000
SPAM_MAX_LINKS = 3
_LINK = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_CHARACTER_FLOOD = re.compile(r"(\S)\1{19,}")
_FACET_BREAK = re.compile(r"[,;:()\[\]\n.!?/]+")


@dataclass(frozen=True)
class Candidate:
    uuid: str
    name: str
    description: str
    bias: float = 0.0
    stickness: float = 0.0
    type: str = AgentType.USER_FACING

    @property
    def profile(self) -> str:
        """What the query is compared with: never the prompt (the owner's instructions are not a description)."""
        return f"{self.name}: {self.description}" if self.description.strip() else self.name

    @property
    def facets(self) -> list[str]:
        """The pieces of the description (a list of jobs, usually), for a query about one of them."""
        pieces = (piece.strip() for piece in _FACET_BREAK.split(self.description))
        return list(dict.fromkeys(piece for piece in pieces if piece and piece != self.description.strip()))


@dataclass(frozen=True)
class Decision:
    index: int
    reason: str
    reply: str | None = None
    """A fixed reply for a user-facing agent (small talk)."""


def spam_reason(query: str) -> str | None:
    """Why `query` is obviously spam ("oversize", "links", "repetition"), or None."""
    if len(query) > SPAM_MAX_CHARS:
        return "oversize"
    if len(_LINK.findall(query)) >= SPAM_MAX_LINKS:
        return "links"
    if _CHARACTER_FLOOD.search(query):
        return "repetition"
    found = words(query)
    if len(found) >= 10 and Counter(found).most_common(1)[0][1] > len(found) / 2:
        return "repetition"
    if len(found) >= 8 and len(set(found)) * 2 <= len(found):
        return "repetition"  # a few words over and over: no sentence repeats half its words
    return None


def decide(candidates: Sequence[Candidate], query: str, reading: Reading | None, previous_uuid: str | None) -> Decision:
    """The candidate that takes `query` (see the module's rules), and why."""
    types = [candidate.type for candidate in candidates]
    facing = [index for index, kind in enumerate(types) if kind == AgentType.USER_FACING]
    if not facing:  # nobody to fall back on: the closest agent
        return Decision(best(candidates, _closeness(candidates, query, reading), previous_uuid), "scored")
    if reading is not None:
        special = _special(candidates, query, reading, facing)
        if special is not None:
            return special
    elif (index := _by_key_terms(candidates, query, facing)) is not None:
        return Decision(index, "scored")
    return Decision(_user_facing(candidates, _closeness(candidates, query, reading), facing, previous_uuid), "scored")


def _special(candidates: Sequence[Candidate], query: str, reading: Reading, facing: list[int]) -> Decision | None:
    """Small talk for the default agent, or an agent of another type that the evidence calls for."""
    if (chat := small_talk(candidates, query, reading)) is not None:
        return chat
    types = [candidate.type for candidate in candidates]
    intended = _intended(reading, types)
    if intended is not None:
        intent, index = intended
        return Decision(index, f"spam: {intent}" if intent in UNWANTED else intent)
    leads = [
        (_topic_lead(reading, index, facing), index) for index, kind in enumerate(types) if kind == AgentType.PRE_CANNED
    ]
    lead, index = max(leads, default=(0.0, -1))
    return Decision(index, "topic") if lead >= TOPIC_LEAD else None


def small_talk(candidates: Sequence[Candidate], query: str, reading: Reading) -> Decision | None:
    """The default agent with a friendly reply, when the query is small talk (short, and nearest to it)."""
    facing = [index for index, candidate in enumerate(candidates) if candidate.type == AgentType.USER_FACING]
    whole = reading.whole
    if not facing or whole.intent != Intent.SMALL_TALK or whole.similarity < SMALL_TALK_FLOOR:
        return None
    if whole.question_lead < SMALL_TALK_LEAD:
        return None
    if len(words(query)) > SMALL_TALK_WORDS or whole.prototype is None:
        return None
    return Decision(facing[0], Intent.SMALL_TALK, friendly_reply(whole.prototype, query))


def rated(candidates: Sequence[Candidate], ratings: Sequence[float], previous_uuid: str | None) -> Decision:
    """The model's choice from its `ratings` (with bias and stickness); of equals, the default agent."""
    scores = _scores(candidates, ratings, previous_uuid)
    facing = [index for index, candidate in enumerate(candidates) if candidate.type == AgentType.USER_FACING]
    top = max(scores)
    index = next((i for i in facing if scores[i] >= top), scores.index(top))
    return Decision(index, "rated")


def _intended(reading: Reading, types: list[str]) -> tuple[Intent, int] | None:
    """The spam-defense agent when a unit is clearly spam, abuse or an injection attempt, else the human-escalation
    agent when a unit clearly asks for a person (an attack that also asks for someone is still an attack)."""
    if AgentType.SPAM_DEFENSE in types:
        for unit in reading.intents:
            if unit.intent in UNWANTED and unit.similarity >= UNWANTED_FLOOR and unit.lead >= UNWANTED_LEAD:
                return unit.intent, types.index(AgentType.SPAM_DEFENSE)
    if AgentType.HUMAN_ESCALATION in types:
        for unit in reading.intents:
            if unit.intent == Intent.PERSON and unit.similarity >= PERSON_FLOOR and unit.lead >= PERSON_LEAD:
                return unit.intent, types.index(AgentType.HUMAN_ESCALATION)
    return None


def clearly_asks_for_person(reading: Reading) -> bool:
    """Whether the message or a clause asks for a person as clearly as spam must be spam (`UNWANTED_FLOOR`,
    `UNWANTED_LEAD`): the built-in hand-off (`answering.turn.built_in`) is on in every chatbot, and a question handed to
    a person is as lost to the knowledge as one refused as spam ("Do you offer botox?" is 0.37 from "I need a live
    agent", a real request 0.55 and more). An owner's human-escalation agent asks less (`PERSON_FLOOR`)."""
    return any(
        unit.intent == Intent.PERSON and unit.similarity >= UNWANTED_FLOOR and unit.lead >= UNWANTED_LEAD
        for unit in reading.intents
    )


def _topic_lead(reading: Reading, index: int, facing: list[int]) -> float:
    """How much closer the pre-canned candidate `index` is than any user-facing one, in its best unit (a unit that
    asks for a person or is small talk is about no topic)."""
    leads = [
        row[index] - max(row[other] for other in facing)
        for row, unit in zip(reading.closeness, reading.intents, strict=True)
        if row[index] >= TOPIC_FLOOR and not _is_person_or_small_talk(unit)
    ]
    return max(leads, default=0.0)


def _is_person_or_small_talk(unit: UnitIntent) -> bool:
    if unit.intent == Intent.PERSON:
        return unit.similarity >= PERSON_FLOOR and unit.lead >= PERSON_LEAD
    return unit.intent == Intent.SMALL_TALK and unit.similarity >= SMALL_TALK_FLOOR


def _user_facing(
    candidates: Sequence[Candidate], similarity: Sequence[float], facing: list[int], previous_uuid: str | None
) -> int:
    """The user-facing agent that takes the query: where the conversation is, unless another clearly fits better."""
    scores = _scores(candidates, similarity, previous_uuid)
    previous = next((index for index in facing if candidates[index].uuid == previous_uuid), None)
    home = facing[0] if previous is None else previous
    margin = SWITCH_MARGIN if previous is None else FOLLOW_UP_MARGIN
    challenger = max(facing, key=lambda index: (scores[index], -index))
    return challenger if scores[challenger] - scores[home] >= margin else home


def _by_key_terms(candidates: Sequence[Candidate], query: str, facing: list[int]) -> int | None:
    """Without vectors: an agent of another type that shares more of the query's key terms than every user-facing
    agent (a query of one key term, "help" or "hello", is never enough)."""
    if len(content_words(query)) < 2:
        return None
    similarity = _closeness(candidates, query, None)
    top = max(similarity[index] for index in facing)
    others = [index for index in range(len(candidates)) if index not in facing and similarity[index] > top]
    return max(others, key=lambda index: similarity[index]) if others else None


def _closeness(candidates: Sequence[Candidate], query: str, reading: Reading | None) -> list[float]:
    return list(reading.closeness[0]) if reading is not None else similarities(query, candidates)


def similarities(query: str, candidates: Sequence[Candidate]) -> list[float]:
    """The cosine of the stemmed key-term sets of the query and each candidate's profile."""
    asked = key_terms(query)
    scores = []
    for candidate in candidates:
        offered = key_terms(candidate.profile)
        shared = len(asked & offered)
        scores.append(shared / math.sqrt(len(asked) * len(offered)) if shared else 0.0)
    return scores


def _scores(candidates: Sequence[Candidate], similarity: Sequence[float], previous_uuid: str | None) -> list[float]:
    return [
        closeness
        + BIAS_WEIGHT * candidate.bias
        + (STICKNESS_WEIGHT * candidate.stickness if candidate.uuid == previous_uuid else 0.0)
        for candidate, closeness in zip(candidates, similarity, strict=True)
    ]


def best(candidates: Sequence[Candidate], similarity: Sequence[float], previous_uuid: str | None) -> int:
    """The index of the highest-scoring candidate (the first of equals)."""
    scores = _scores(candidates, similarity, previous_uuid)
    return max(range(len(scores)), key=lambda index: (scores[index], -index))
