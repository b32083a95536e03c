"""One chatbot's search index: its chunks as rows, the BM25 index and the vector matrix over the same rows.

An index is immutable once built, so searches need no lock and can run in a worker thread; a knowledge change
builds a new one (`Retriever`) and the old one is dropped when its last search ends.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from botyard.embedding import Vectors, part_cosines
from botyard.retrieval.dense import DenseIndex
from botyard.retrieval.fusion import (
    FEEDBACK_DOCS,
    Method,
    Ranked,
    candidates,
    feedback_query,
    fuse_standardised,
    lookup,
    order,
)
from botyard.retrieval.lexical import Document, LexicalIndex
from botyard.retrieval.repository import ChunkRow

OVERFETCH = 100
"""Candidates each method contributes to the fusion; far more than any top_k, so fusion can reorder freely."""


def lexical_text(row: ChunkRow) -> str:
    """What BM25 matches: the source title and the heading path say what a passage is about even when the
    passage itself never repeats the words (a "Fees" paragraph of the "Returns" page)."""
    return "\n".join(part for part in (row.source_title, row.heading, row.text) if part)


def _content_order(row: ChunkRow) -> tuple[str, str, str, str, int, str]:
    return (row.text, row.heading, row.source_title, row.data_source_uuid, row.position, row.uuid)


@dataclass(frozen=True)
class Search:
    """One query's inputs besides the index: the text, its vector (None: BM25 only), the scope and the size."""

    query: str
    vector: Vectors | None
    sources: Collection[str] | None
    top_k: int
    method: Method


class ChatbotIndex:
    def __init__(
        self, version: int, rows: Sequence[ChunkRow], parts: tuple[int, ...] | None, *, stem: bool = True
    ) -> None:
        self.version = version
        # Rows in content order (code points, not a database collation): ties in score are broken by row, so equal
        # scores rank by content, the same on both databases, whose uuids differ; uuids decide only between copies.
        self.rows = sorted(rows, key=_content_order)
        self.lexical = LexicalIndex(
            [Document(row_id, row.data_source_uuid, lexical_text(row)) for row_id, row in enumerate(self.rows)],
            stem=stem,
        )
        self.dense = DenseIndex([row.embedding for row in self.rows], parts) if parts and sum(parts) else None
        source_ids: dict[str, int] = {}
        self._source_of_row = np.array(
            [source_ids.setdefault(row.data_source_uuid, len(source_ids)) for row in self.rows], dtype=np.int64
        )
        self._source_ids = source_ids
        self.unrelated: tuple[float, ...] = ()
        """The evidence unrelated questions find here (`baseline`), set once by whoever built the index."""

    @property
    def size(self) -> int:
        return len(self.rows)

    @property
    def has_vectors(self) -> bool:
        return self.dense is not None and self.dense.count > 0

    def _in_scope(self, sources: Collection[str] | None) -> npt.NDArray[np.bool_] | None:
        if sources is None:
            return None
        wanted = [self._source_ids[uuid] for uuid in sources if uuid in self._source_ids]
        return np.isin(self._source_of_row, np.array(wanted, dtype=np.int64))

    def _dense_candidates(self, search: Search, limit: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The best `limit` rows by cosine within the scope, and the cosine of every row (-inf out of scope)."""
        assert self.dense is not None and search.vector is not None
        scores = self.dense.scores(search.vector)
        scope = self._in_scope(search.sources)
        if scope is not None:
            scores[~scope] = -np.inf
        limit = min(limit, int(np.isfinite(scores).sum()))
        if limit <= 0:
            return np.zeros(0, dtype=np.int64), scores
        best = np.argpartition(-scores, limit - 1)[:limit] if limit < len(scores) else np.arange(len(scores))
        return np.asarray(best, dtype=np.int64), scores

    def search(self, search: Search) -> Ranked:
        """The best `top_k` rows for the query by `search.method`, with every method's score.

        BM25 scores are normalised by the query's largest possible score (see `lexical`); dense scores are cosines.
        Without a query vector (no embedder, or no chunk embedded yet) every method falls back to BM25.
        """
        limit = max(OVERFETCH, search.top_k)
        bm25_rows, bm25_raw, bm25_max = self.lexical.search(search.query, limit, search.sources)
        bm25_scores = bm25_raw / bm25_max if bm25_max > 0 else bm25_raw
        use_dense = search.vector is not None and self.has_vectors
        if use_dense:
            dense_rows, dense_all = self._dense_candidates(search, limit)
        else:
            dense_rows, dense_all = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        method = search.method if use_dense else Method.BM25
        if method is Method.BM25:
            rows = bm25_rows
        elif method is Method.DENSE:
            rows = dense_rows
        else:
            rows = candidates(bm25_rows, dense_rows)
        bm25 = lookup(rows, bm25_rows, bm25_scores.astype(np.float32), 0.0)
        dense = dense_all[rows] if use_dense else np.full(len(rows), np.nan, dtype=np.float32)
        if method is Method.BM25:
            score = bm25
        elif method is Method.DENSE:
            score = dense
        else:
            score = fuse_standardised(bm25, self._voters(rows, search.vector))
        if method is Method.HYBRID and len(rows):
            score = self._feedback(search, rows, score, bm25)
        best = order(rows, score)[: search.top_k]
        return Ranked(rows=rows[best], score=score[best], bm25=bm25[best], dense=dense[best])

    def _feedback(
        self, search: Search, rows: npt.NDArray[np.int64], score: npt.NDArray[np.float32], bm25: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """The second, feedback pass of hybrid ranking (see `fusion`): the candidates' fused scores again, with the
        query vector moved towards the best of them. Only the candidates are scored: on msmarco-5k rescoring the
        whole chatbot ranked exactly the same, at the cost of a second full matrix product."""
        assert self.dense is not None and search.vector is not None
        seeds = rows[order(rows, score)[:FEEDBACK_DOCS]]
        vector = feedback_query(np.asarray(search.vector, dtype=np.float32), self.dense.rows(seeds), self.dense.parts)
        return fuse_standardised(bm25, self._voters(rows, vector))

    def _voters(self, rows: npt.NDArray[np.int64], vector: Vectors | None) -> list[npt.NDArray[np.float32]]:
        """Each model's cosines of the candidates with the question, for the models that read it (`fusion`)."""
        if self.dense is None or vector is None:
            return []
        found = part_cosines(self.dense.rows(rows), np.asarray(vector, dtype=np.float32), self.dense.parts)
        for cosine in found:
            cosine[~self.dense.present[rows]] = np.nan
        return found
