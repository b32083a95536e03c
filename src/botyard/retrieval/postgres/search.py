"""The postgres search backend (`BOTYARD_SEARCH=postgres`): PostgreSQL with pgvector searches, processes hold no index.

A search reads the chatbot's `search_state`; rows behind its knowledge version are caught up first, in a brief
write transaction of their own (`sync`). Then two statements find the candidates, BM25 and the closest vectors of
the question's own model (`ranking`), one reads their rows and vectors, and they are ranked here by the fusion the
embedded index uses (`fusion`: standardised votes, one feedback pass), ties broken by content as it breaks them. The
evidence of the relevance decision is the embedded index's: the question's term weights and unseen words from the
chatbot's term statistics (`lexicon`), each hit's coverage from its stored terms, and what unrelated questions find
here, measured when the rows change enough (`baseline`)."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.session import Database
from botyard.embedding import Embedder, own_part
from botyard.retrieval.backend import Found, Query, UnrelatedVectors
from botyard.retrieval.base import Hit
from botyard.retrieval.baseline import UNRELATED_QUESTIONS
from botyard.retrieval.bm25 import idf
from botyard.retrieval.fusion import OVERFETCH, Method, hybrid_scores, voters
from botyard.retrieval.knowledge import ChunkRow, KnowledgeReader
from botyard.retrieval.postgres.repository import ranking, schema
from botyard.retrieval.postgres.repository.lexicon import query_terms
from botyard.retrieval.postgres.repository.sync import State, catch_up, forget, read_state
from botyard.retrieval.relevance import JUDGED_HITS, coverage, similarity

log = logging.getLogger(__name__)


class PostgresSearch:
    """`SearchBackend` on PostgreSQL with pgvector (see the module)."""

    def __init__(
        self,
        embedder: Embedder | None,
        database: Database,
        knowledge: KnowledgeReader,
        unrelated: UnrelatedVectors,
        replica: Database | None = None,
    ) -> None:
        self.embedder = embedder
        self.database = database
        self.replica = replica
        """A read replica searches use while it holds the chatbot's rows at its knowledge version (read on the
        primary): a replica that lags behind a change is never searched for that chatbot, the primary is."""
        self.knowledge = knowledge
        self._unrelated_vectors = unrelated
        self.parts: tuple[int, ...] = tuple(embedder.parts) if embedder is not None and embedder.parts else ()
        self.embedder_name = embedder.name if embedder is not None else None

    async def check(self) -> None:
        """That the database can serve searches (the extension, the tables, the embedder): `SearchSetupError`."""
        async with self.database.engine.connect() as connection:
            await schema.check(connection, self.embedder_name or "none", self.parts)

    async def search(self, db: AsyncSession, chatbot_uuid: str, query: Query, version: int | None) -> Found | None:
        knowledge = self.knowledge(db)
        if version is None:
            version = await knowledge.knowledge_version(chatbot_uuid)
        if version is None:
            return None
        if self.replica is not None:
            async with self.replica.transaction(write=False) as replica:
                state = await self._replica_state(replica, chatbot_uuid, version)
                if state is not None:
                    return await self._found(replica, chatbot_uuid, state, query)
        state = await read_state(db, chatbot_uuid)
        if state is None or state.version < version:
            state = await self.caught_up(chatbot_uuid, version)
        return await self._found(db, chatbot_uuid, state, query)

    async def _found(self, db: AsyncSession, chatbot_uuid: str, state: State, query: Query) -> Found:
        if state.documents == 0:
            return Found(hits=[], method=Method.BM25, size=0)
        return await self.ranked(db, chatbot_uuid, state, query)

    async def _replica_state(self, replica: AsyncSession, chatbot_uuid: str, version: int) -> State | None:
        """The chatbot's state on the replica when the replica has caught up to `version`; else None (the primary
        serves, and catches the rows up if they are behind)."""
        state = await read_state(replica, chatbot_uuid)
        return state if state is not None and state.version >= version else None

    async def caught_up(self, chatbot_uuid: str, version: int) -> State:
        """The chatbot's rows at `version` (`sync`), written on the primary in a transaction of their own."""
        async with self.database.transaction() as session:
            return await catch_up(
                session,
                self.knowledge(session),
                chatbot_uuid,
                version,
                self.embedder_name,
                self.parts,
                self.unrelated_evidence,
            )

    async def forget(self, db: AsyncSession, chatbot_uuid: str) -> None:
        """The deleted chatbot's rows, in the deleting transaction (the primary's: replicas follow it)."""
        await forget(db, chatbot_uuid)

    async def ranked(self, db: AsyncSession, chatbot_uuid: str, state: State, query: Query) -> Found:
        lexicon = await query_terms(db, chatbot_uuid, state.documents, state.languages, query.text)
        terms = lexicon.terms(query.text)
        idfs = {
            term: idf(max(state.documents, 1), lexicon.frequency(term)) for term in terms if lexicon.frequency(term)
        }
        sources = sorted(query.sources) if query.sources is not None else None
        limit = max(OVERFETCH, query.top_k)
        average = state.total_length / max(state.documents, 1)
        frequencies = {term: lexicon.frequency(term) for term in idfs}
        bm25_ids, bm25_raw = await ranking.bm25(db, chatbot_uuid, idfs, frequencies, average, sources, limit)
        ceiling = lexicon.max_score(terms)
        bm25_of = {uuid: (raw / ceiling if ceiling > 0 else raw) for uuid, raw in zip(bm25_ids, bm25_raw, strict=True)}
        vector = np.asarray(query.vector, dtype=np.float32) if query.vector is not None else None
        dense_ids: list[str] = []
        part = own_part(vector, self.parts) if vector is not None and self.parts else None
        if vector is not None and part is not None and query.method is not Method.BM25:
            start = sum(self.parts[:part])
            piece = vector[start : start + self.parts[part]]
            exact = await ranking.searched_exactly(db, state.documents)
            dense_ids = await ranking.nearest(db, chatbot_uuid, part, piece, self.parts[part], exact, sources, limit)
        method = query.method if dense_ids else Method.BM25
        wanted = {Method.BM25: bm25_ids, Method.DENSE: dense_ids}.get(method) or sorted({*bm25_ids, *dense_ids})
        rows, stored = (
            ([], [])
            if not wanted
            else await self.knowledge(db).chunks(chatbot_uuid, self.embedder_name, chunk_uuids=wanted)
        )
        weights = lexicon.weights(query.text)
        hits = self._rank(rows, stored, bm25_of, vector if method is not Method.BM25 else None, method, query.top_k)
        judged = await ranking.terms_of(db, [hit.chunk_uuid for hit in hits[: query.covered]])
        for rank, hit in enumerate(hits):
            held, detected = judged.get(hit.chunk_uuid, (frozenset(), None))
            covered = coverage(weights, held) if rank < query.covered else 0.0
            hits[rank] = replace(hit, coverage=covered, language=state.languages.reading(detected))
        return Found(
            hits=hits,
            method=method,
            size=state.documents,
            term_weights=weights,
            unseen_terms=lexicon.unseen(weights),
            unrelated=state.unrelated,
        )

    def _rank(
        self,
        rows: Sequence[ChunkRow],
        stored: Sequence[object],
        bm25_of: dict[str, float],
        vector: np.ndarray | None,
        method: Method,
        top_k: int,
    ) -> list[Hit]:
        """The candidates ranked as the embedded index ranks them (`index.ChatbotIndex.search`), best `top_k`."""
        if not rows:
            return []
        bm25 = np.array([bm25_of.get(row.uuid, 0.0) for row in rows], dtype=np.float32)
        width = sum(self.parts)
        present = np.array([each is not None for each in stored], dtype=bool)
        dense = np.full(len(rows), np.nan, dtype=np.float32)
        gathered = None
        if vector is not None and width:
            gathered = np.zeros((len(rows), width), dtype=np.float32)
            for index, each in enumerate(stored):
                if each is not None:
                    gathered[index] = np.asarray(each, dtype=np.float32)
            found = voters(gathered, present, vector, self.parts)
            own = np.nan_to_num(found[0], nan=0.0) if found else np.zeros(len(rows), dtype=np.float32)
            dense = np.where(present, own, -np.inf).astype(np.float32)
        if method is Method.BM25 or gathered is None or vector is None:
            score = bm25
        elif method is Method.DENSE:
            score = dense
        else:
            score = hybrid_scores(bm25, gathered, present, vector, self.parts, lambda by: _order(rows, by))
        return [_hit(rows[index], score, bm25, dense, index) for index in _order(rows, score)[:top_k]]

    async def unrelated_evidence(self, session: AsyncSession, chatbot_uuid: str, state: State) -> tuple[float, ...]:
        """The best evidence each unrelated question finds in the chatbot (`baseline.unrelated_evidence`)."""
        vectors = await self._unrelated_vectors()
        found = []
        for question, vector in zip(UNRELATED_QUESTIONS, vectors, strict=True):
            method = Method.HYBRID if vector is not None else Method.BM25
            query = Query(question, vector, None, JUDGED_HITS, method, JUDGED_HITS)
            hits = (await self.ranked(session, chatbot_uuid, state, query)).hits
            best = max((similarity(hit.scores.get("dense", math.nan)) + hit.coverage for hit in hits), default=0.0)
            found.append(round(best, 4))
        return tuple(found)


def _content(row: ChunkRow) -> tuple[str, str, str, str, int, str]:
    """Equal scores rank by content, as the embedded index ranks them (`index._content_order`)."""
    return (row.text, row.heading, row.source_title, row.data_source_uuid, row.position, row.uuid)


def _order(rows: Sequence[ChunkRow], score: np.ndarray) -> list[int]:
    values = score.astype(np.float64).tolist()
    return sorted(range(len(rows)), key=lambda index: (-values[index], _content(rows[index])))


def _hit(row: ChunkRow, score: np.ndarray, bm25: np.ndarray, dense: np.ndarray, index: int) -> Hit:
    """A ranked candidate as a hit (its coverage and language are added once the best are known)."""
    scores = {"bm25": float(bm25[index])}
    if math.isfinite(float(dense[index])):
        scores["dense"] = float(dense[index])
    return Hit(
        chunk_uuid=row.uuid,
        data_source_uuid=row.data_source_uuid,
        source_title=row.source_title,
        source_type=row.source_type,
        heading=row.heading,
        text=row.text,
        score=float(score[index]),
        scores=scores,
        source_meta=row.source_meta,
        tokens=row.tokens,
        source_file_name=row.source_file_name,
    )
