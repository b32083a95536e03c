"""What the vectors say about a message, for the supervisor: how close it is to each agent's description, and which
intent (`intents`) the message and each of its clauses are nearest to.

An agent's closeness is the better of its whole "name: description" and its description's best facet (the pieces
between commas, colons, brackets...): a long description lists several jobs, and a question is usually about one of
them. Intents are read per unit (the whole message, then each clause), because a request for a person or an
injection is often one clause of a longer message. The user-facing agents' facets count as ordinary questions when
intents are read: they are written in the chatbot's own language, so they balance whatever the built-in prototypes
lack in it.

The vectors of the prototypes and of the agents' descriptions are computed once per process (`VectorCache`); a
message costs the query's vector (the retriever's, cached) and its clauses', each by its own model only, embedded
with it: MiniLM runs the query and its English clauses at once (`embedding.batching`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from botyard.answering.routing.intents import PROTOTYPES, Intent, Prototype
from botyard.embedding import Embedder, Vectors, similarities

CACHE_SIZE = 4096
"""Texts whose vectors are kept per process (agents' descriptions and their facets: a few dozen per chatbot)."""


@dataclass(frozen=True)
class UnitIntent:
    """The intent one unit (the message, or one of its clauses) is nearest to."""

    intent: Intent
    similarity: float
    lead: float
    """How much closer it is to that intent than to the nearest other one."""
    question_lead: float
    """How much closer it is to that intent than to the nearest ordinary question (0 for a question)."""
    prototype: Prototype | None
    """The nearest built-in prototype of that intent (None: an agent's facet was nearer)."""


@dataclass(frozen=True)
class Reading:
    """What the vectors say about one message."""

    closeness: list[list[float]]
    """Per unit (the whole message first, then its clauses), each candidate's closeness, in the candidates' order."""
    intents: list[UnitIntent]
    """Per unit, in the same order."""

    @property
    def whole(self) -> UnitIntent:
        return self.intents[0]


class VectorCache:
    """Vectors of texts that change rarely (prototypes, agents' descriptions), computed once per process.

    Once: the messages of a burst that meet a new process all miss at first, and each embedding every prototype
    again made the model's work a hundred times what it is (1,000 visitors over 10 s on two new workers: the query
    embeddings were a tenth of MiniLM's time, the prototypes the rest). A text being embedded is awaited by whoever
    else needs it (`_embedding`)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._vectors: dict[str, Vectors] = {}
        self._embedding: dict[str, asyncio.Future[None]] = {}
        """The texts being embedded now, each with what its embedding's end sets."""

    async def of(self, texts: Sequence[str]) -> Vectors:
        """The rows of `texts`, in order (the missing ones embedded in one batch, unless already on their way)."""
        found: dict[str, Vectors] = {}
        while len(found) < len(set(texts)):
            found |= {text: self._vectors[text] for text in texts if text in self._vectors}
            awaited = {self._embedding[text] for text in texts if text not in found and text in self._embedding}
            missing = [text for text in dict.fromkeys(texts) if text not in found and text not in self._embedding]
            if missing:
                found |= await self._embedded(missing)
            for future in awaited:  # another answer's batch: whatever becomes of it, the loop looks again
                await asyncio.wait([future])
        return np.stack([found[text] for text in texts])

    async def _embedded(self, missing: list[str]) -> dict[str, Vectors]:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._embedding |= dict.fromkeys(missing, done)
        try:
            vectors = await self.embedder.embed_documents(missing)
        finally:
            for text in missing:
                self._embedding.pop(text, None)
            done.set_result(None)  # the waiters look again: a failed batch is tried again by one of them
        if len(self._vectors) + len(missing) > CACHE_SIZE + len(PROTOTYPES):
            self._vectors = {p.text: self._vectors[p.text] for p in PROTOTYPES if p.text in self._vectors}
        made = {text: np.asarray(vector, dtype=np.float32) for text, vector in zip(missing, vectors, strict=True)}
        self._vectors |= made
        return made


def closeness(units: Vectors, profiles: Vectors, facets: Sequence[Vectors], parts: Sequence[int]) -> Vectors:
    """(units x candidates): the better of each candidate's profile and its best facet, per unit."""
    whole = similarities(profiles, units, parts).T  # the units are the questions: their own model decides
    best_facet = np.stack(
        [similarities(rows, units, parts).max(axis=0) if len(rows) else whole[:, i] for i, rows in enumerate(facets)]
    )
    return np.asarray(np.maximum(whole, best_facet.T), dtype=np.float32)


_ROWS = {intent: [row for row, p in enumerate(PROTOTYPES) if p.intent == intent] for intent in Intent}


def nearest_intents(
    units: Vectors, prototypes: Vectors, questions: Vectors | None, parts: Sequence[int]
) -> list[UnitIntent]:
    """Each unit's nearest intent; `questions` are extra rows that count as ordinary questions (agents' facets)."""
    sims = similarities(prototypes, units, parts).T
    extra = similarities(questions, units, parts).max(axis=0) if questions is not None and len(questions) else None
    found = []
    for unit, unit_sims in enumerate(sims):
        nearest: dict[Intent, tuple[float, Prototype | None]] = {}
        for intent, rows in _ROWS.items():
            top = rows[int(np.argmax(unit_sims[rows]))]
            nearest[intent] = (float(unit_sims[top]), PROTOTYPES[top])
        if extra is not None and float(extra[unit]) > nearest[Intent.QUESTION][0]:
            nearest[Intent.QUESTION] = (float(extra[unit]), None)
        ranked = sorted(nearest, key=lambda intent: -nearest[intent][0])
        similarity, prototype = nearest[ranked[0]]
        lead, question_lead = similarity - nearest[ranked[1]][0], similarity - nearest[Intent.QUESTION][0]
        found.append(UnitIntent(ranked[0], similarity, lead, question_lead, prototype))
    return found


async def clause_vectors_of(cache: VectorCache, clause_texts: Sequence[str]) -> Vectors | None:
    """The vectors of a message's clauses (None for one clause: the message alone is its only unit). A clause is a
    question, compared only by its own model: all of them in one run of it (`embed_questions`; with the bundled
    pair, an English clause skips USE-m3, whose part nothing here reads)."""
    return await cache.embedder.embed_questions(clause_texts) if len(clause_texts) > 1 else None


async def read(
    cache: VectorCache,
    query_vector: Vectors,
    clause_vectors: Vectors | None,
    profiles: Sequence[str],
    facets: Sequence[Sequence[str]],
    questions: Sequence[int],
) -> Reading:
    """The reading of a message whose vector is `query_vector` and whose clauses' are `clause_vectors`
    (`clause_vectors_of`; None: one clause, the message alone), against candidates with these `profiles` and
    `facets`; `questions` are the indices of the candidates whose facets count as ordinary questions (the
    user-facing agents)."""
    units = np.asarray(query_vector, dtype=np.float32)[None, :]
    if clause_vectors is not None:
        units = np.vstack([units, clause_vectors])
    empty = np.zeros((0, units.shape[1]), dtype=np.float32)
    facet_rows = [await cache.of(list(texts)) if texts else empty for texts in facets]
    parts = cache.embedder.parts
    near = closeness(units, await cache.of(list(profiles)), facet_rows, parts)
    asked = [row for index in questions for row in facet_rows[index]]
    prototypes = await cache.of([p.text for p in PROTOTYPES])
    intents = nearest_intents(units, prototypes, np.stack(asked) if asked else None, parts)
    return Reading([[float(value) for value in row] for row in near], intents)
