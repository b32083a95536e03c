"""One chatbot's search index: its chunks as rows, the BM25 index and the vector matrix over the same rows.

An index never changes once made, so searches need no lock and can run in a worker thread. A knowledge change makes
a new one (`search.EmbeddedSearch`): `updated` marks the changed sources' rows dead and appends their new rows, sharing
the older index's tantivy index and vector matrices (which only ever grow at the end, past what the older one reads);
the older one is dropped when its last search ends.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from botyard.embedding import Vectors
from botyard.retrieval.base import Hit
from botyard.retrieval.embedded.dense import DenseIndex
from botyard.retrieval.embedded.lexical import Document, LexicalIndex
from botyard.retrieval.embedded.rows import Texts, rows_of
from botyard.retrieval.fusion import (
    OVERFETCH,
    Method,
    Ranked,
    candidates,
    hybrid_scores,
    lookup,
    order,
)
from botyard.retrieval.knowledge import ChunkRow, Stored
from botyard.retrieval.relevance import coverage
from botyard.retrieval.terms import lexical_text

if TYPE_CHECKING:
    from botyard.retrieval.embedded.private import Private

DEAD_SHARE = 0.25
"""The share of an index's rows that may be dead (replaced or deleted chunks, kept until a rebuild) before an update
rebuilds it instead: BM25's statistics count dead rows until tantivy merges them away, and they take memory; at a
quarter, rebuilds cost the changes about a third of their own size again, in proportion to them as a whole."""


def _document(row_id: int, row: ChunkRow) -> Document:
    """What the lexical index takes of a row, with the terms kept at ingestion (`stored_terms`)."""
    return Document(
        row_id, row.data_source_uuid, row.text, row.source_title, row.terms, row.terms_tag, row.heading or ""
    )


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
        self,
        version: int,
        rows: Sequence[ChunkRow],
        vectors: Sequence[Stored],
        parts: tuple[int, ...] | None,
        *,
        stem: bool = True,
        workdir: Private | None = None,
    ) -> None:
        """The index of `rows`, with `vectors` their stored vectors in the same order (None: not embedded by the
        current embedder), searched part by part as `parts` says (None: no embedder, BM25 only). `workdir`: where
        its tantivy index is written (a `snapshot` is made of its files); None: in RAM."""
        self.version = version
        self.built_version = version
        """The version the index was built at; it was caught up from there (`updated`) to `version`."""
        # Rows in content order (code points, not a database collation), so that a build reads the same on both
        # databases, whose uuids differ; ties in score are broken by content too (`_order`), whatever the rows.
        order = sorted(range(len(rows)), key=lambda index: _content_order(rows[index]))
        ordered = [rows[index] for index in order]
        self.rows = rows_of(ordered, Texts(workdir.texts if workdir is not None else None))
        self.lexical = LexicalIndex(
            [_document(row_id, row) for row_id, row in enumerate(ordered)],
            stem=stem,
            path=str(workdir.tantivy) if workdir is not None else None,
        )
        self.workdir = workdir
        """The process's own directory holding the tantivy index and the texts, shared by the indexes updated from
        this one."""
        self.dense = DenseIndex([vectors[index] for index in order], parts) if parts and sum(parts) else None
        self.live = np.ones(len(self.rows), dtype=bool)
        """Which rows are current: an update marks the rows of a changed source dead and adds its new ones."""
        self.unrelated: tuple[float, ...] = ()
        """The evidence unrelated questions find here (`baseline`), set once by whoever built the index."""
        self.unrelated_size = len(self.rows)
        """The size the index had when `unrelated` was measured."""

    @property
    def size(self) -> int:
        """How many chunks the index holds (its live rows)."""
        return self.lexical.size

    @property
    def has_vectors(self) -> bool:
        return self.dense is not None and self.dense.count > 0

    def updated(
        self, version: int, sources: Collection[str], rows: Sequence[ChunkRow], vectors: Sequence[Stored]
    ) -> ChatbotIndex | None:
        """This index at `version`, where the chunks of `sources` are now `rows` with their `vectors` (none: they
        were deleted), as a new object:
        this one stays as it was for the searches that use it. The work is in proportion to those sources. None
        when only a rebuild is right: the dead rows would pass `DEAD_SHARE`, or the chatbot's languages change.
        Only the newest index of a chatbot may be updated (it shares its search structures with the new one)."""
        order = sorted(range(len(rows)), key=lambda index: _content_order(rows[index]))
        fresh = [rows[index] for index in order]
        changed = [self.rows.source_ids[uuid] for uuid in sources if uuid in self.rows.source_ids]
        removed = np.flatnonzero(np.isin(self.rows.source, np.array(changed, dtype=np.int32)) & self.live)
        dead = len(self.rows) - self.size + len(removed)
        if dead > DEAD_SHARE * (len(self.rows) + len(fresh)):
            return None
        start = len(self.rows)
        gone = {row: self.rows[row] for row in removed.tolist()}
        lexical = self.lexical.updated(
            sources,
            [_document(row, chunk) for row, chunk in gone.items()],
            [_document(start + i, row) for i, row in enumerate(fresh)],
        )
        if lexical is None:
            return None
        new = copy.copy(self)
        new.version, new.lexical, new.rows = version, lexical, self.rows.extended(fresh)
        if self.dense is not None:
            new.dense = self.dense.updated(removed, [vectors[index] for index in order])
        new.live = np.concatenate([self.live, np.ones(len(fresh), dtype=bool)])
        new.live[removed] = False
        return new

    def _order(self, rows: npt.NDArray[np.int64], score: npt.NDArray[np.float32]) -> npt.NDArray[np.intp]:
        """Indices sorting `rows` by score descending, equal scores by content: the same order on every run, both
        databases and whatever history of updates placed the rows."""
        if self.built_version == self.version:  # as built, rows are in content order: the row is the rank
            return order(rows, score)
        # Only rows of equal scores need their content to rank (their texts are read from disk, `rows`).
        _, group, size = np.unique(score, return_inverse=True, return_counts=True)  # NaNs are one group
        tied = np.flatnonzero(size[group] > 1)
        keys = [_content_order(self.rows[row]) for row in rows[tied].tolist()]
        rank = np.zeros(len(rows), dtype=np.int64)
        rank[tied[sorted(range(len(keys)), key=keys.__getitem__)]] = np.arange(len(keys))
        return order(rank, score)

    def _in_scope(self, sources: Collection[str] | None) -> npt.NDArray[np.bool_] | None:
        if sources is None:
            return None
        wanted = [self.rows.source_ids[uuid] for uuid in sources if uuid in self.rows.source_ids]
        return np.isin(self.rows.source, np.array(wanted, dtype=np.int32))

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
            assert self.dense is not None and search.vector is not None  # `use_dense`
            gathered = self.dense.rows(rows)  # read once for both passes of the fusion
            present = self.dense.present[rows]
            score = hybrid_scores(
                bm25, gathered, present, search.vector, self.dense.parts, lambda by: self._order(rows, by)
            )
        best = self._order(rows, score)[: search.top_k]
        return Ranked(rows=rows[best], score=score[best], bm25=bm25[best], dense=dense[best])

    def hits(self, ranked: Ranked, weights: dict[str, float], covered: int) -> list[Hit]:
        """The ranked rows as hits; the first `covered` with their coverage of the question (the decision reads the
        best `JUDGED_HITS`; hit testing shows it for all)."""
        hits = []
        for rank, (row_id, score, bm25, dense) in enumerate(
            zip(ranked.rows.tolist(), ranked.score.tolist(), ranked.bm25.tolist(), ranked.dense.tolist(), strict=True)
        ):
            row = self.rows[row_id]
            scores = {"bm25": bm25} | ({"dense": dense} if math.isfinite(dense) else {})
            hits.append(
                Hit(
                    chunk_uuid=row.uuid,
                    data_source_uuid=row.data_source_uuid,
                    source_title=row.source_title,
                    source_type=row.source_type,
                    heading=row.heading,
                    text=row.text,
                    score=score,
                    scores=scores,
                    source_meta=row.source_meta,
                    tokens=row.tokens,
                    coverage=coverage(weights, self.lexical.terms_in(lexical_text(row), row_id))
                    if rank < covered
                    else 0.0,
                    language=self.lexical.readings[row_id],
                    source_file_name=row.source_file_name,
                )
            )
        return hits
