"""The supervisor's decision, offline: which routed agent takes a query, from the agents' names and descriptions.

Each candidate is scored by how close its "name: description" is to the query (cosine of the embedder's vectors,
or of the key terms' stems without an embedder), plus `BIAS_WEIGHT` x its `bias`, plus `STICKNESS_WEIGHT` x its
`stickness` if it answered the session's previous query. The highest score wins; a tie goes to the agent created
first. Spam rules come before any score: with an enabled spam-defense agent, a link flood, a repeated-character
flood or an oversize query goes to it at once.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from botyard.answering.text import key_terms, words
from botyard.embedding import Vectors

BIAS_WEIGHT = 0.25
"""A bias of 1 is worth this much cosine similarity (MiniLM puts a question about 0.2-0.4 closer to a matching
description than to an unrelated one)."""
STICKNESS_WEIGHT = 0.25
SPAM_MAX_CHARS = 2000
SPAM_MAX_LINKS = 3
_LINK = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_CHARACTER_FLOOD = re.compile(r"(\S)\1{19,}")


@dataclass(frozen=True)
class Candidate:
    uuid: str
    name: str
    description: str
    bias: float = 0.0
    stickness: float = 0.0

    @property
    def profile(self) -> str:
        """What the query is compared with: never the prompt (the owner's instructions are not a description)."""
        return f"{self.name}: {self.description}" if self.description.strip() else self.name


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
    return None


def similarities(
    query: str, candidates: Sequence[Candidate], query_vector: Vectors | None, profiles: Vectors | None
) -> list[float]:
    """The query's closeness to each candidate's profile: cosine of the vectors when given (rows of `profiles` in
    the candidates' order, normalised), otherwise the cosine of the stemmed key-term sets."""
    if query_vector is not None and profiles is not None:
        return [float(value) for value in np.asarray(profiles) @ np.asarray(query_vector)]
    asked = key_terms(query)
    scores = []
    for candidate in candidates:
        offered = key_terms(candidate.profile)
        shared = len(asked & offered)
        scores.append(shared / math.sqrt(len(asked) * len(offered)) if shared else 0.0)
    return scores


def best(candidates: Sequence[Candidate], similarity: Sequence[float], previous_uuid: str | None) -> int:
    """The index of the winning candidate (the first of equals)."""
    scores = [
        closeness
        + BIAS_WEIGHT * candidate.bias
        + (STICKNESS_WEIGHT * candidate.stickness if candidate.uuid == previous_uuid else 0.0)
        for candidate, closeness in zip(candidates, similarity, strict=True)
    ]
    return max(range(len(scores)), key=lambda index: (scores[index], -index))
