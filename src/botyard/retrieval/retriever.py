"""The retriever: what answering and hit testing ask of search. It embeds the question (the last ones are kept:
`query_vectors`), asks the search backend (`backend`: `embedded` or `postgres`, by `BOTYARD_SEARCH`) for the
chatbot's ranked hits, makes the relevance decision on them (`relevance`) and, for the offline answerer, reads how
close each passage of the best hits is to the question (`passage_closeness`)."""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.embedding import Embedder, Vectors
from botyard.retrieval.backend import Found, Query, SearchBackend
from botyard.retrieval.base import Retrieval
from botyard.retrieval.baseline import UNRELATED_QUESTIONS
from botyard.retrieval.fusion import Method
from botyard.retrieval.knowledge import KnowledgeReader
from botyard.retrieval.passage_closeness import closeness_of_passages
from botyard.retrieval.query_vectors import QueryVectors
from botyard.retrieval.relevance import JUDGED_HITS, Evidence, Strictness, assess, similarity


class Retriever:
    """Hybrid retrieval scoped to a chatbot and, optionally, to some of its sources (an agent's selection)."""

    def __init__(self, embedder: Embedder | None, knowledge: KnowledgeReader) -> None:
        self.embedder = embedder
        self.knowledge = knowledge
        self._queries = QueryVectors(embedder) if embedder is not None else None
        self._unrelated: list[Vectors | None] | None = None
        self.backend: SearchBackend | None = None
        """Set once by whoever makes the retriever (`runtime`), before the first search."""

    async def retrieve(
        self,
        db: AsyncSession,
        chatbot_uuid: str,
        query: str,
        *,
        source_uuids: Collection[str] | None = None,
        top_k: int = 8,
        method: Method = Method.HYBRID,
        vector: Vectors | None = None,
        strictness: Strictness = Strictness.BALANCED,
        explain: bool = False,
        passages: bool = False,
        version: int | None = None,
    ) -> Retrieval:
        """The `top_k` best chunks of the chatbot for `query`, best first, among `source_uuids` when given (None:
        all the chatbot's sources; the caller resolves an agent's `use_all_sources` / `data_source_uuids`), and
        the relevance decision on them (`relevance`, at the chatbot's `strictness`). `method` exists for
        measurements and hit testing.

        `explain`: every hit's coverage, not only the judged ones' (hit testing shows them). `passages`: when the
        question is answerable, the cosine of each passage of the best hits (the offline answerer quotes by them;
        one more read, so only for it).

        `vector`: the query's vector from `embed_query`, computed before the caller opened `db` (no connection is
        held while the model runs); computed here when not given. `version`: the chatbot's knowledge version as the
        caller read it (an answer reads it with the chatbot), so that an index already at it costs no statement;
        None: read here."""
        found = None
        if top_k > 0 and (source_uuids is None or source_uuids):
            found, vector = await self._found(
                db, chatbot_uuid, query, source_uuids, top_k, method, vector, explain, version
            )
        if found is None or found.size == 0:
            return Retrieval(hits=[], relevant=False, assessment=assess([], strictness))
        evidence = [Evidence(similarity(hit.scores.get("dense", math.nan)), hit.coverage) for hit in found.hits]
        assessment = assess(evidence, strictness, found.unrelated)
        retrieval = Retrieval(
            hits=found.hits,
            relevant=assessment.relevant,
            method=found.method.value,
            assessment=assessment,
            term_weights=found.term_weights,
            unseen_terms=found.unseen_terms,
        )
        used = vector if found.method is not Method.BM25 else None
        return await self.with_passages(db, retrieval, used) if passages else retrieval

    async def _found(
        self,
        db: AsyncSession,
        chatbot_uuid: str,
        query: str,
        source_uuids: Collection[str] | None,
        top_k: int,
        method: Method,
        vector: Vectors | None,
        explain: bool,
        version: int | None,
    ) -> tuple[Found | None, Vectors | None]:
        """The backend's ranked hits (`retrieve`; None: no such chatbot), and the query vector they were searched with
        (None: BM25 only; else the caller's `vector`, or the question embedded here)."""
        if method is Method.BM25 or not self.reads(query):
            vector = None
        elif vector is None:
            vector = await self.embed_query(query)
        scope = frozenset(source_uuids) if source_uuids is not None else None
        covered = max(JUDGED_HITS, top_k if explain else 0)
        assert self.backend is not None, "the retriever has no search backend"
        found = await self.backend.search(
            db, chatbot_uuid, Query(query, vector, scope, top_k, method, covered), version
        )
        return found, vector

    async def with_passages(self, db: AsyncSession, retrieval: Retrieval, vector: Vectors | None) -> Retrieval:
        """`retrieval` with the closeness of each passage of its best hits to the question (`passage_closeness`)
        when it is answerable and was searched with `vector`: a few primary-key reads."""
        if not retrieval.relevant or vector is None or retrieval.method in ("", Method.BM25) or self.embedder is None:
            return retrieval
        hits = await closeness_of_passages(
            self.knowledge(db), self.embedder, self._unrelated or [], list(retrieval.hits), vector
        )
        return replace(retrieval, hits=hits)

    async def forget(self, db: AsyncSession, chatbot_uuid: str) -> None:
        """What the search backend keeps of a chatbot `db`'s transaction deletes (`SearchBackend.forget`)."""
        if self.backend is not None:
            await self.backend.forget(db, chatbot_uuid)

    async def unrelated_vectors(self) -> list[Vectors | None]:
        """The unrelated questions' vectors (`baseline`), embedded once per process."""
        if self._unrelated is None:
            self._unrelated = [await self.embed_query(question) for question in UNRELATED_QUESTIONS]
        return self._unrelated

    def reads(self, query: str) -> bool:
        """Whether the model reads the query (`Embedder.reads`): if not, an English model and a Chinese question,
        its cosines are noise, and BM25 alone ranks and the relevance decision reads no similarity."""
        return self.embedder is not None and self.embedder.reads(query)

    async def embed_query(self, query: str) -> Vectors | None:
        """The query's vector (`query_vectors`: the last ones are kept); None without an embedder, for an empty
        query, or when embedding fails (retrieval falls back to BM25)."""
        if self._queries is None or not query.strip():
            return None
        return await self._queries.of(query)
