"""The two searches the postgres backend asks the database for, each the best `limit` chunks of a chatbot (within an
agent's sources): BM25 over the postings of the question's terms (`search_posting`, read by index alone), scored as
tantivy scores them, and the closest vectors of the question's own model part (exact below `EXACT_ROWS` chunks,
else through the part's HNSW index with pgvector's iterative scan, which goes on past the chunks other chatbots hold
until it has `limit` of this one's)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.retrieval.bm25 import K1, B
from botyard.retrieval.postgres.repository.schema import part_column

EXACT_ROWS = 20_000
"""Chatbots of up to this many chunks are searched exactly by vector (a scan of their rows, a few milliseconds):
an approximate index filtered down to a small share of a shared table loses recall, which is what peers met
(open-webui #30135). Above it, the HNSW index with an iterative scan."""
EF_SEARCH = 400
"""HNSW candidates per scan step: with `strict_order` iterative scans, recall@10 against exact search stays at
0.98 or more with 100 chatbots sharing the index (`bench/search_recall.py`)."""
MAX_SCAN_TUPLES = 200_000
"""How far an iterative scan may go for one query before it stops with what it found."""


# The statements below join fixed fragments only (a scope clause, a part's number and width): values are bound.
def scope_sql(sources: Sequence[str] | None, table: str = "") -> str:
    return f" AND {table}data_source_uuid = ANY(:sources)" if sources is not None else ""


async def bm25(
    session: AsyncSession,
    chatbot_uuid: str,
    weights: dict[str, float],
    average_length: float,
    sources: Sequence[str] | None,
    limit: int,
) -> tuple[list[str], list[float]]:
    """The best `limit` chunks by BM25 on the query's terms with their idf (`weights`), best first, and raw scores."""
    if not weights or limit <= 0:
        return [], []
    terms = sorted(weights)
    # Every number bound as float8: left to infer them from the integer columns, PostgreSQL took them for integers.
    statement = text(
        "SELECT p.chunk_uuid, sum(w.idf * p.tf * CAST(:k1p AS float8) / (p.tf + CAST(:k1 AS float8) * "  # noqa: S608
        "(1 - CAST(:b AS float8) + CAST(:b AS float8) * p.norm / CAST(:average AS float8)))) AS score "
        "FROM unnest(CAST(:terms AS text[]), CAST(:idfs AS float8[])) AS w(term, idf) "
        "JOIN search_posting p ON p.chatbot_uuid = :bot AND p.term = w.term"
        f"{scope_sql(sources, 'p.')} GROUP BY p.chunk_uuid ORDER BY score DESC, p.chunk_uuid LIMIT :limit"
    )
    values = {
        "bot": chatbot_uuid,
        "terms": terms,
        "idfs": [weights[term] for term in terms],
        "k1": K1,
        "k1p": K1 + 1,
        "b": B,
        "average": max(average_length, 1e-9),
        "limit": limit,
    }
    if sources is not None:
        values["sources"] = list(sources)
    rows = (await session.execute(statement, values)).all()
    return [row.chunk_uuid for row in rows], [float(row.score) for row in rows]


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
    if not exact:
        for setting, value in (
            ("hnsw.ef_search", EF_SEARCH),
            ("hnsw.iterative_scan", "strict_order"),
            ("hnsw.max_scan_tuples", MAX_SCAN_TUPLES),
        ):
            await session.execute(
                text("SELECT set_config(:name, :value, true)"), {"name": setting, "value": str(value)}
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
