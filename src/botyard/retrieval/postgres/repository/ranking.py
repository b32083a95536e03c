"""The two searches the postgres backend asks the database for, each the best `limit` chunks of a chatbot (within an
agent's sources): BM25 over the postings of the question's terms (`search_posting`, read by index alone), scored as
tantivy scores them, and the closest vectors of the question's own model part: exactly, by a scan of the chatbot's
rows, unless the chatbot is both large and a large share of the table (`searched_exactly`); then through the part's
HNSW index with pgvector's iterative scan, which goes on past the chunks other chatbots hold until it has `limit` of
this one's)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.retrieval.bm25 import K1, B
from botyard.retrieval.postgres.repository.schema import part_column

EXACT_ROWS = 50_000
"""Chatbots of up to this many chunks are searched exactly by vector. An exact scan costs in proportion to the
chatbot's rows (`bench/search_recall.py`, 1.1M rows of 102 chatbots: 7.5 ms at 10k, 15 ms at 25k, 42 ms at 100k,
medians), a filtered HNSW scan in proportion to how far it must read past other chatbots' rows, and it loses recall as
the chatbot's share shrinks: there it was slower than exact at 10k and 25k chunks, with recall@10 0.89 and 0.93."""
MIN_SHARE = 0.05
"""A chatbot above `EXACT_ROWS` is searched through the HNSW index only if it holds at least this share of the table's
rows; below, exactly (measured: recall@10 0.98 at an 8.9% share, 0.93 at 2.2%, the others' chunks interleaved with
its own). A very large chatbot in a much larger table is then searched exactly, slower but with every neighbour."""
EF_SEARCH = 400
"""HNSW candidates per scan step, with `strict_order` iterative scans (recall as in `MIN_SHARE`)."""
MAX_SCAN_TUPLES = 200_000
"""How far an iterative scan may go for one query before it stops with what it found."""


# The statements below join fixed fragments only (a scope clause, a part's number and width): values are bound.
def scope_sql(sources: Sequence[str] | None, table: str = "") -> str:
    return f" AND {table}data_source_uuid = ANY(:sources)" if sources is not None else ""


FREQUENT_POSTINGS = 5_000
"""A question's term found in more chunks than this ("the", "what" in a large chatbot) is read only for the chunks
its other terms found, when that cannot change the best `limit` (`bm25`): read whole, three such words cost 2 s at
100k chunks (10.9M postings), the pruned statement tens of milliseconds."""


PROMOTED_POSTINGS = 4 * FREQUENT_POSTINGS
"""The most postings the first reading of a pruned BM25 may take (`_split`)."""


def _contribution(term: str, posting: str) -> str:
    """A posting's BM25 score, as tantivy computes it (every number bound as float8: left to infer them from the
    integer columns, PostgreSQL took them for integers)."""
    return (
        f"{term}.idf * {posting}.tf * CAST(:k1p AS float8) / ({posting}.tf + CAST(:k1 AS float8) * "
        f"(1 - CAST(:b AS float8) + CAST(:b AS float8) * {posting}.norm / CAST(:average AS float8)))"
    )


async def bm25(
    session: AsyncSession,
    chatbot_uuid: str,
    weights: dict[str, float],
    frequencies: dict[str, int],
    average_length: float,
    sources: Sequence[str] | None,
    limit: int,
) -> tuple[list[str], list[float]]:
    """The best `limit` chunks by BM25 on the query's terms with their idf (`weights`) and document frequencies,
    best first, and raw scores.

    Terms of more than `FREQUENT_POSTINGS` chunks are left out of the first reading (MaxScore): the other terms'
    chunks are scored, the `limit`-th best of those partial scores is a floor of the `limit`-th best whole score, and
    a chunk the frequent terms alone found scores less than their idfs' bound, `(k1 + 1)` each. When that bound is
    below the floor, only the chunks that can still reach it are completed, by index, with the frequent terms'
    postings: the same best `limit`, the same scores. Otherwise (the rare terms find too little: a question of
    frequent words only, or rare ones of fewer than `limit` chunks in all, `_split`) every posting is read."""
    if not weights or limit <= 0:
        return [], []
    values: dict[str, object] = {
        "bot": chatbot_uuid, "k1": K1, "k1p": K1 + 1, "b": B, "average": max(average_length, 1e-9), "limit": limit,
    }  # fmt: skip
    if sources is not None:
        values["sources"] = list(sources)
    rare, frequent = _split(weights, frequencies, limit)
    if frequent:
        found = await _pruned(session, values, weights, rare, frequent, sources, limit)
        if found is not None:
            return found
    statement = text(
        f"SELECT p.chunk_uuid, sum({_contribution('w', 'p')}) AS score "  # noqa: S608
        "FROM unnest(CAST(:terms AS text[]), CAST(:idfs AS float8[])) AS w(term, idf) "
        "JOIN search_posting p ON p.chatbot_uuid = :bot AND p.term = w.term"
        f"{scope_sql(sources, 'p.')} GROUP BY p.chunk_uuid ORDER BY score DESC, p.chunk_uuid LIMIT :limit"
    )
    terms = sorted(weights)
    rows = (await session.execute(statement, {**values, "terms": terms, "idfs": [weights[t] for t in terms]})).all()
    return [row.chunk_uuid for row in rows], [float(row.score) for row in rows]


def _split(weights: dict[str, float], frequencies: dict[str, int], limit: int) -> tuple[list[str], list[str]]:
    """The terms read first and the frequent ones read after (none: read them all at once). The rare terms must
    have `limit` postings at least, or they cannot settle anything: the least frequent of the frequent terms join
    them while they hold fewer and the whole stays within `PROMOTED_POSTINGS` ("reset" beside "the", "of", "what"
    when the question's rarer words are in a few chunks only)."""
    ordered = sorted(weights, key=lambda term: (frequencies.get(term, 0), term))
    rare = [term for term in ordered if frequencies.get(term, 0) <= FREQUENT_POSTINGS]
    frequent = [term for term in ordered if term not in rare]
    read = sum(frequencies.get(term, 0) for term in rare)
    while frequent and read < limit and read + frequencies.get(frequent[0], 0) <= PROMOTED_POSTINGS:
        read += frequencies.get(frequent[0], 0)
        rare.append(frequent.pop(0))
    return (sorted(rare), sorted(frequent)) if read >= limit else (sorted(weights), [])


async def _pruned(
    session: AsyncSession,
    values: dict[str, object],
    weights: dict[str, float],
    rare: list[str],
    frequent: list[str],
    sources: Sequence[str] | None,
    limit: int,
) -> tuple[list[str], list[float]] | None:
    """`bm25`'s pruned reading; None when the rare terms' chunks cannot settle the best `limit`."""
    statement = text(
        f"WITH partial AS (SELECT p.chunk_uuid, sum({_contribution('w', 'p')}) AS score "  # noqa: S608
        "FROM unnest(CAST(:terms AS text[]), CAST(:idfs AS float8[])) AS w(term, idf) "
        f"JOIN search_posting p ON p.chatbot_uuid = :bot AND p.term = w.term{scope_sql(sources, 'p.')} "
        "GROUP BY p.chunk_uuid), "
        "needed AS (SELECT coalesce((SELECT score FROM partial ORDER BY score DESC LIMIT 1 OFFSET :last), 0) AS value) "
        "SELECT h.chunk_uuid, h.score + coalesce(extra.score, 0) AS total, "
        "f.value > CAST(:bound AS float8) AS settled FROM partial h CROSS JOIN needed f "
        f"LEFT JOIN LATERAL (SELECT sum({_contribution('w', 'q')}) AS score "
        "FROM unnest(CAST(:frequent AS text[]), CAST(:frequent_idfs AS float8[])) AS w(term, idf) "
        "JOIN search_posting q ON q.chatbot_uuid = :bot AND q.term = w.term AND q.chunk_uuid = h.chunk_uuid) extra "
        "ON true WHERE h.score + CAST(:bound AS float8) >= f.value ORDER BY total DESC, h.chunk_uuid LIMIT :limit"
    )
    bound = sum(weights[term] for term in frequent) * (K1 + 1)
    rows = (
        await session.execute(
            statement,
            {
                **values,
                "terms": rare,
                "idfs": [weights[term] for term in rare],
                "frequent": frequent,
                "frequent_idfs": [weights[term] for term in frequent],
                "bound": bound,
                "last": limit - 1,
            },
        )
    ).all()
    if not rows or not rows[0].settled:
        return None
    return [row.chunk_uuid for row in rows], [float(row.total) for row in rows]


async def searched_exactly(session: AsyncSession, rows: int) -> bool:
    """Whether a chatbot of `rows` chunks is searched exactly (`EXACT_ROWS`, `MIN_SHARE`). The table's size is
    PostgreSQL's estimate (kept by autovacuum's analyses), read only for a chatbot above `EXACT_ROWS`; never
    analysed (-1), the chatbot is taken for the table's only one."""
    if rows <= EXACT_ROWS:
        return True
    table = await session.scalar(text("SELECT reltuples FROM pg_class WHERE oid = CAST('search_chunk' AS regclass)"))
    total = max(float(table or 0), float(rows))  # an estimate may lag behind the chatbot's own rows
    return rows / total < MIN_SHARE


async def nearest(
    session: AsyncSession,
    chatbot_uuid: str,
    part: int,
    question: np.ndarray,
    width: int,
    exact: bool,
    sources: Sequence[str] | None,
    limit: int,
) -> list[str]:
    """The `limit` chunks whose vector part `part` is closest to the question's (cosine), best first."""
    column = part_column(part, width)
    # The question bound as a halfvec parameter: converted once, when the statement is executed. Bound as text and
    # cast in the statement, the cast ran per row once the prepared statement went to a generic plan (from its
    # sixth execution on a connection): 23 us per row, 660 ms for 30k rows instead of 20.
    distance = f"{column} <=> CAST(:question AS halfvec({width}))"
    # `+ 0` is not the indexed expression: the planner scans the chatbot's rows exactly instead of the HNSW index.
    order = f"({distance}) + 0" if exact else distance
    if not exact:  # the scan's settings, for this transaction only, in one statement
        await session.execute(
            text(
                "SELECT set_config('hnsw.ef_search', :ef, true), set_config('hnsw.iterative_scan', 'strict_order', "
                "true), set_config('hnsw.max_scan_tuples', :tuples, true)"
            ),
            {"ef": str(EF_SEARCH), "tuples": str(MAX_SCAN_TUPLES)},
        )
    statement = text(
        f"SELECT chunk_uuid FROM search_chunk WHERE chatbot_uuid = :bot AND part{part} IS NOT NULL"  # noqa: S608
        f"{scope_sql(sources)} ORDER BY {order} LIMIT :limit"
    )
    literal = "[" + ",".join(f"{value:.6g}" for value in question.tolist()) + "]"
    values: dict[str, object] = {"bot": chatbot_uuid, "question": literal, "limit": limit}
    if sources is not None:
        values["sources"] = list(sources)
    return [row.chunk_uuid for row in await session.execute(statement, values)]


async def terms_of(session: AsyncSession, chunk_uuids: Sequence[str]) -> dict[str, tuple[frozenset[str], str | None]]:
    """Each chunk's terms (its coverage of a question is read from them) and its detected language."""
    if not chunk_uuids:
        return {}
    statement = text("SELECT chunk_uuid, tf, detected FROM search_chunk WHERE chunk_uuid = ANY(:chunks)")
    rows = await session.execute(statement, {"chunks": list(chunk_uuids)})
    found = {}
    for row in rows:
        tf = row.tf if isinstance(row.tf, dict) else json.loads(row.tf)
        found[row.chunk_uuid] = (frozenset(tf), row.detected)
    return found
