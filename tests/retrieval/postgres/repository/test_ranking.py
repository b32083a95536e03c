"""`ranking.nearest` as a long-running server executes it: a prepared statement that PostgreSQL plans generically
(from its sixth execution on a connection, when its custom plans cost no less). Its question must then be converted
once per execution, not once per row (bound as text and cast in the statement, it cost 23 us per row: 660 ms for
30k chunks), and the approximate statement must still use the HNSW index while the exact one scans the rows."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.session import Database
from botyard.retrieval.bm25 import K1, B
from botyard.retrieval.postgres.repository import ranking, schema
from tests.support.database import PGVECTOR_ENV, fresh_settings

pytestmark = [
    pytest.mark.skipif(not os.environ.get(PGVECTOR_ENV), reason=f"{PGVECTOR_ENV} is not set"),
    pytest.mark.timeout(300),
]

WIDTH = 8
ROWS = 40


def vectors(count: int, seed: int) -> np.ndarray:
    found = np.random.default_rng(seed).normal(size=(count, WIDTH)).astype(np.float32)
    return found / np.linalg.norm(found, axis=1, keepdims=True)


def literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{value:.6g}" for value in vector.tolist()) + "]"


async def fill(session: AsyncSession) -> np.ndarray:
    """The tables with one part of WIDTH dimensions (and its HNSW index), and ROWS chunks of chatbot "bot"."""
    connection = await session.connection()
    for statement in (*schema.TABLES, *schema.hnsw_indexes([WIDTH])):
        await connection.execute(text(statement))
    rows = vectors(ROWS, seed=1)
    await connection.execute(
        text(
            "INSERT INTO search_chunk (chunk_uuid, chatbot_uuid, data_source_uuid, tf, length, norm, part0) "
            "VALUES (:chunk, 'bot', 'source', '{}', 1, 1, CAST(:part AS halfvec))"
        ),
        [{"chunk": f"chunk-{index:02}", "part": literal(row)} for index, row in enumerate(rows)],
    )
    await connection.execute(text("ANALYZE search_chunk"))
    await session.commit()
    return rows


async def nearest_generically(
    database: Database, exact: bool, question: np.ndarray
) -> tuple[list[str], list[dict[str, Any]]]:
    """What `nearest` finds under generic plans only, and the generic plan of each search statement it executed."""
    executed: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        executed.append(statement)

    async with AsyncSession(database.engine) as session:
        await session.execute(text("SET plan_cache_mode = force_generic_plan"))
        # A few rows are cheaper to read whole: the planner is told to, as it chooses on a table of many chatbots.
        await session.execute(text("SET enable_seqscan = off"))
        await session.execute(text("SET enable_bitmapscan = off"))
        event.listen(database.engine.sync_engine, "before_cursor_execute", seen)
        try:
            found = await ranking.nearest(session, "bot", 0, question, WIDTH, exact, None, 10)
        finally:
            event.remove(database.engine.sync_engine, "before_cursor_execute", seen)
        # The generic plan of what ran, and the types PostgreSQL gave its parameters (asyncpg lets it infer them too).
        raw = await (await session.connection()).get_raw_connection()
        driver = raw.driver_connection
        assert driver is not None
        plans = []
        for number, statement in enumerate(statement for statement in executed if "FROM search_chunk" in statement):
            await driver.execute(f"PREPARE searched_{number} AS {statement}")
            arguments = f"'bot', '{literal(question)}', 10"
            document = await driver.fetchval(f"EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE searched_{number}({arguments})")
            plan = (json.loads(document) if isinstance(document, str) else document)[0]["Plan"]
            types = await driver.fetchval(
                "SELECT parameter_types::text FROM pg_prepared_statements WHERE name = $1", f"searched_{number}"
            )
            plans.append({**plan, "parameter types": types})
        return found, plans


async def searched(database: Database, exact: bool, question: np.ndarray) -> tuple[np.ndarray, list[str], Any]:
    try:
        async with AsyncSession(database.engine) as session:
            rows = await fill(session)
        return rows, *(await nearest_generically(database, exact, question))
    finally:
        await database.dispose()


def nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [plan, *(node for child in plan.get("Plans", []) for node in nodes(child))]


def ordering(plan: dict[str, Any]) -> str:
    """The expressions rows are ordered by: a sort's keys, or an index scan's ORDER BY."""
    return " ".join(
        " ".join(node.get("Sort Key", [])) + " " + str(node.get("Order By", "")) for node in nodes(plan)
    )  # fmt: skip


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "hnsw"])
def test_a_generic_plan_converts_the_question_once_and_keeps_its_path(tmp_path: Path, exact: bool) -> None:
    question = vectors(1, seed=2)[0]
    with fresh_settings("pgvector", tmp_path, search="embedded") as settings:
        rows, found, plans = asyncio.run(searched(Database.from_settings(settings), exact, question))
    closest = np.argsort(-(rows @ question), kind="stable")[:10]
    assert found[:3] == [f"chunk-{index:02}" for index in closest[:3]]  # float16 may swap near ties further down
    assert len(plans) == 1
    # Bound as text and cast in the statement, the plan reads the same (`$2::halfvec(8)`) but converts per row.
    assert plans[0]["parameter types"] == "{text,halfvec,bigint}", plans[0]["parameter types"]
    assert "<=> ($2)::halfvec(8)" in ordering(plans[0]), ordering(plans[0])
    used_index = any(f"search_chunk_part0_{WIDTH}" in str(node.get("Index Name", "")) for node in nodes(plans[0]))
    assert used_index is not exact, json.dumps(plans[0], indent=1)


def test_large_chatbots_with_a_large_share_of_the_table_take_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranking, "EXACT_ROWS", 10)
    monkeypatch.setattr(ranking, "MIN_SHARE", 0.5)

    async def go(database: Database) -> tuple[list[bool], list[bool]]:
        try:
            async with AsyncSession(database.engine) as session:
                connection = await session.connection()
                for statement in schema.TABLES:
                    await connection.execute(text(statement))
                never_analysed = [await ranking.searched_exactly(session, rows) for rows in (5, 15, 30)]
                await fill(session)  # ROWS chunks, analysed
                return never_analysed, [await ranking.searched_exactly(session, rows) for rows in (5, 15, 30)]
        finally:
            await database.dispose()

    with fresh_settings("pgvector", tmp_path, search="embedded") as settings:
        never_analysed, analysed = asyncio.run(go(Database.from_settings(settings)))
    # Unknown size: the chatbot is taken for the only one. Of 40 rows: 15 is 37.5% (exact), 30 is 75% (the index).
    assert never_analysed == [True, False, False]
    assert analysed == [True, True, False]


POSTINGS = {"common": 300, "often": 250, "rare1": 60, "rare2": 70, "tiny": 5}
"""Of how many of 300 chunks each term is a posting (chunks 0.., each term's own stride of them)."""


def postings() -> list[dict[str, Any]]:
    rows = []
    for number, (term, count) in enumerate(POSTINGS.items()):
        for index in range(count):
            chunk = (index * (number + 1) * 7) % 300 if count < 300 else index
            rows.append({"term": term, "chunk": f"chunk-{chunk:03}", "tf": 1 + (index * 5 + number) % 4,
                         "norm": 20 + (chunk * 13) % 90})  # fmt: skip
    unique = {(row["term"], row["chunk"]): row for row in rows}
    return list(unique.values())


def brute_force(rows: list[dict[str, Any]], weights: dict[str, float], average: float, limit: int) -> list[Any]:
    scores: dict[str, float] = {}
    for row in rows:
        if row["term"] in weights:
            tf, norm = row["tf"], row["norm"]
            part = weights[row["term"]] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * norm / average))
            scores[row["chunk"]] = scores.get(row["chunk"], 0.0) + part
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]


@pytest.mark.parametrize(
    ("weights", "budget", "statements"),
    [
        ({"common": 0.01, "often": 0.2, "rare1": 1.6, "rare2": 1.4}, 400, ["WITH partial"]),  # settled by the rare
        ({"common": 0.01, "tiny": 4.0}, 400, ["GROUP BY"]),  # too few rare postings to settle anything: read whole
        ({"common": 0.01, "often": 0.2, "tiny": 4.0}, 400, ["WITH partial"]),  # "often" joins the rare to settle it
        ({"common": 0.01, "often": 0.2, "tiny": 4.0}, 200, ["GROUP BY"]),  # but not past the first reading's budget
        ({"common": 3.0, "rare1": 1.6, "rare2": 1.4}, 400, ["WITH partial", "GROUP BY"]),  # a frequent term's bound
    ],
    ids=["pruned", "whole", "promoted", "over-budget", "unsettled"],
)
def test_bm25_reads_frequent_terms_only_where_they_can_matter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, weights: dict[str, float], budget: int, statements: list[str]
) -> None:
    monkeypatch.setattr(ranking, "FREQUENT_POSTINGS", 100)
    monkeypatch.setattr(ranking, "PROMOTED_POSTINGS", budget)
    rows, average, limit = postings(), 55.0, 100
    executed: list[str] = []

    async def go(database: Database) -> tuple[list[str], list[float]]:
        def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            executed.append(statement)

        try:
            async with AsyncSession(database.engine) as session:
                connection = await session.connection()
                for statement in schema.TABLES:
                    await connection.execute(text(statement))
                await connection.execute(
                    text(
                        "INSERT INTO search_posting (chatbot_uuid, term, chunk_uuid, data_source_uuid, tf, norm) "
                        "VALUES ('bot', :term, :chunk, 'source', :tf, :norm)"
                    ),
                    rows,
                )
                event.listen(database.engine.sync_engine, "before_cursor_execute", seen)
                return await ranking.bm25(session, "bot", weights, POSTINGS, average, None, limit)
        finally:
            event.remove(database.engine.sync_engine, "before_cursor_execute", seen)
            await database.dispose()

    with fresh_settings("pgvector", tmp_path, search="embedded") as settings:
        ids, scores = asyncio.run(go(Database.from_settings(settings)))
    expected = brute_force(rows, weights, average, limit)
    assert ids == [chunk for chunk, _ in expected]
    assert scores == pytest.approx([score for _, score in expected], abs=1e-9)
    assert [next(key for key in ("WITH partial", "GROUP BY") if key in each) for each in executed] == statements
