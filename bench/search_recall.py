"""Recall of the postgres search backend's vector search with many chatbots sharing its tables.

One `search_chunk` table (the backend's own definition, `retrieval/postgres/repository/schema.py`) holds a big
chatbot (default 100k chunks), an "edge" chatbot just above `ranking.EXACT_ROWS` (the smallest share of the table an
HNSW search could serve, the hardest case for a filtered approximate search) and 100 others of 10k each. Then the
backend's own statement (`ranking.nearest`, with its `ef_search`, `strict_order` iterative scan and scan bound)
answers each measured chatbot's questions, and recall@10 is counted against the exact search of the same rows (the
same statement, exact). Peers who put every tenant's vectors under one HNSW index and filtered afterwards lost most
of a small tenant's neighbours (open-webui #30135): here a chatbot is searched exactly unless it is both above
`EXACT_ROWS` chunks and at least `MIN_SHARE` of the table; every measured chatbot is also searched through the index,
to show what that rule avoids, and the table says which way the backend takes for it.

The vectors are synthetic, from a model of how knowledge bases look, because embedding 1.1M chunks here would take
hours: topics shared between chatbots (two chatbots of one trade cover the same ground, so their vectors interleave in
the index), each chatbot's own sub-topics within them, and each chunk's own noise; every row unit length, stored as
`halfvec`. Questions are drawn like chunks of the chatbot asked. `--noise` widens the clusters (higher noise: a
harder set for HNSW).

Building the table and its index takes a while (about 20 minutes at the default 1.125M rows of 384 dimensions on 2
cores): `--keep NAME` keeps the database, and a later run with the same `--keep NAME` measures it again without
rebuilding (the layout is recorded in it).

    python bench/search_recall.py --postgres-url postgresql://postgres@127.0.0.1:5433/postgres
    python bench/search_recall.py --postgres-url ... --others 10 --other-rows 2000 --big 30000   # a quick run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import asdict, dataclass

import asyncpg
import numpy as np
from sqlalchemy import make_url
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

from botyard.retrieval.fusion import OVERFETCH
from botyard.retrieval.postgres.repository import ranking, schema

WIDTH = 384
"""MiniLM's part of the bundled embedder's vectors (the part most questions are searched by)."""
K = 10
COPY_BLOCK = 5_000


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Layout:
    big: int
    edge: int
    others: int
    other_rows: int
    topics: int
    topics_per_bot: int
    noise: float
    seed: int

    def chatbots(self) -> list[tuple[str, int]]:
        bots = [("big", self.big), ("edge", self.edge)]
        return bots + [(f"other-{index:03d}", self.other_rows) for index in range(self.others)]


class Generator:
    """Unit vectors clustered as described in the module: shared topics, a chatbot's sub-topics, a chunk's noise."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        rng = np.random.default_rng(layout.seed)
        self.topics = _unit(rng.standard_normal((layout.topics, WIDTH)))

    def centres(self, name: str) -> np.ndarray:
        """The chatbot's sub-topic centres: 8 within each of its topics."""
        rng = self._rng(name, 0)
        chosen = self.topics[rng.choice(self.layout.topics, self.layout.topics_per_bot, replace=False)]
        offsets = _unit(rng.standard_normal((len(chosen), 8, WIDTH))) * 0.7
        return _unit(chosen[:, None, :] + offsets).reshape(-1, WIDTH)

    def rows(self, name: str, count: int, salt: int) -> np.ndarray:
        rng = self._rng(name, salt)
        centres = self.centres(name)
        picked = centres[rng.integers(0, len(centres), count)]
        noise = _unit(rng.standard_normal((count, WIDTH))) * self.layout.noise
        return _unit(picked + noise).astype(np.float32)

    def _rng(self, name: str, salt: int) -> np.random.Generator:
        return np.random.default_rng([self.layout.seed, salt, *name.encode()])


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


async def copy_rows(connection: asyncpg.Connection, generator: Generator, name: str, count: int) -> None:
    async def lines() -> AsyncIterator[bytes]:
        row_format = "[" + ",".join(["%.4f"] * WIDTH) + "]"
        for start in range(0, count, COPY_BLOCK):
            block = generator.rows(name, min(COPY_BLOCK, count - start), salt=1 + start // COPY_BLOCK)
            yield "".join(
                f"{name}-{start + index}\t{name}\t{name}-source\t{{}}\t1\t1\t\\N\t{row_format % tuple(vector)}\n"
                for index, vector in enumerate(block.tolist())
            ).encode()

    columns = ["chunk_uuid", "chatbot_uuid", "data_source_uuid", "tf", "length", "norm", "detected", "part0"]
    await connection.copy_to_table("search_chunk", source=lines(), columns=columns, format="text")


async def build(url: str, layout: Layout) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
        for statement in schema.TABLES:
            await connection.execute(statement)
        await connection.execute("CREATE TABLE bench_layout (layout jsonb NOT NULL)")
        generator = Generator(layout)
        started = time.monotonic()
        for number, (name, count) in enumerate(layout.chatbots(), start=1):
            await copy_rows(connection, generator, name, count)
            if number % 10 == 0 or number <= 2:
                log(f"  {number} chatbots loaded ({time.monotonic() - started:.0f} s)")
        await connection.execute("ANALYZE search_chunk")
        log("building the HNSW index (the backend's own definition) ...")
        started = time.monotonic()
        await connection.execute("SET maintenance_work_mem = '4GB'")
        await connection.execute("SET max_parallel_maintenance_workers = 1")
        for statement in schema.hnsw_indexes([WIDTH]):
            await connection.execute(statement)
        log(f"  index built in {time.monotonic() - started:.0f} s")
        await connection.execute("INSERT INTO bench_layout VALUES ($1)", json.dumps(asdict(layout)))
    finally:
        await connection.close()


async def stored_layout(url: str) -> Layout | None:
    connection = await asyncpg.connect(url)
    try:
        exists = await connection.fetchval("SELECT to_regclass('bench_layout') IS NOT NULL")
        found = await connection.fetchval("SELECT layout FROM bench_layout") if exists else None
        return Layout(**json.loads(found)) if found else None
    finally:
        await connection.close()


@dataclass
class Measured:
    label: str
    rows: int
    recall: float
    worst: float
    exact_ms: tuple[float, float]
    index_ms: tuple[float, float]
    plan: str
    chosen: str
    """What the backend takes for a chatbot of these rows in this table (`ranking.searched_exactly`)."""


async def nearest(session: AsyncSession, name: str, question: np.ndarray, exact: bool) -> tuple[list[str], float]:
    started = time.perf_counter()
    found = await ranking.nearest(session, name, 0, question, WIDTH, exact, None, OVERFETCH)
    elapsed = (time.perf_counter() - started) * 1000
    await session.rollback()  # the scan settings are set for one transaction, as in a search
    return found, elapsed


async def measure(
    session: AsyncSession, generator: Generator, name: str, rows: int, queries: int, label: str
) -> Measured:
    questions = generator.rows(name, queries, salt=10_000)
    recalls, exact_times, index_times = [], [], []
    for question in questions:
        truth, exact_ms = await nearest(session, name, question, exact=True)
        found, index_ms = await nearest(session, name, question, exact=False)
        recalls.append(len(set(truth[:K]) & set(found[:K])) / K)
        exact_times.append(exact_ms)
        index_times.append(index_ms)
    return Measured(
        label, rows, statistics.fmean(recalls), min(recalls), _p50_p95(exact_times), _p50_p95(index_times),
        await plan(session, name, questions[0]),
        "exact" if await ranking.searched_exactly(session, rows) else "HNSW",
    )  # fmt: skip


async def plan(session: AsyncSession, name: str, question: np.ndarray) -> str:
    """Whether the planner took the HNSW index for the approximate statement (else it scanned the rows exactly)."""
    connection = await session.connection()
    raw = await connection.get_raw_connection()
    driver = raw.driver_connection
    assert driver is not None
    column = schema.part_column(0, WIDTH)
    literal = "[" + ",".join(f"{value:.6g}" for value in question.tolist()) + "]"
    lines = await driver.fetch(
        f"EXPLAIN SELECT chunk_uuid FROM search_chunk WHERE chatbot_uuid = $1 AND part0 IS NOT NULL "  # noqa: S608
        f"ORDER BY {column} <=> CAST($2 AS halfvec({WIDTH})) LIMIT {OVERFETCH}",
        name,
        literal,
    )
    await session.rollback()
    text = " ".join(line[0] for line in lines)
    return "hnsw" if "search_chunk_part0" in text else "exact scan"


def _p50_p95(values: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


async def measure_all(url: str, layout: Layout, queries: int) -> list[Measured]:
    engine = create_async_engine(make_url(url).set(drivername="postgresql+asyncpg"))
    generator = Generator(layout)
    try:
        async with AsyncSession(engine) as session:
            return [
                await measure(session, generator, "big", layout.big, queries, "big"),
                await measure(session, generator, "edge", layout.edge, queries, "edge"),
                await measure(session, generator, "other-000", layout.other_rows, queries, "small"),
            ]
    finally:
        await engine.dispose()


def report(layout: Layout, results: Sequence[Measured]) -> str:
    total = sum(count for _, count in layout.chatbots())
    lines = [
        f"{total:,} rows of {WIDTH} dimensions in one table: {len(layout.chatbots())} chatbots "
        f"(big {layout.big:,}, edge {layout.edge:,}, {layout.others} of {layout.other_rows:,}); "
        f"noise {layout.noise}; ef_search {ranking.EF_SEARCH}, strict_order, max_scan_tuples "
        f"{ranking.MAX_SCAN_TUPLES:,}; limit {OVERFETCH}; the HNSW search's recall@{K} against exact, and what the "
        f"backend takes (EXACT_ROWS {ranking.EXACT_ROWS:,}, MIN_SHARE {ranking.MIN_SHARE:.0%})",
        f"{'chatbot':<8} {'rows':>8} {'share':>7} {'HNSW recall@10':>15} {'worst':>6} {'plan':>11} {'takes':>6} "
        f"{'exact p50/p95 ms':>17} {'index p50/p95 ms':>17}",
    ]
    for each in results:
        lines.append(
            f"{each.label:<8} {each.rows:>8,} {each.rows / total:>7.1%} {each.recall:>15.3f} {each.worst:>6.1f} "
            f"{each.plan:>11} {each.chosen:>6} {each.exact_ms[0]:>8.1f}/{each.exact_ms[1]:<8.1f} "
            f"{each.index_ms[0]:>8.1f}/{each.index_ms[1]:<8.1f}"
        )
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> int:
    admin = await asyncpg.connect(args.postgres_url)
    name = args.keep or f"botyard_recall_{secrets.token_hex(4)}"
    url = make_url(args.postgres_url).set(database=name).render_as_string(hide_password=False)
    try:
        exists = await admin.fetchval("SELECT count(*) FROM pg_database WHERE datname = $1", name)
        if not exists:
            await admin.execute(f'CREATE DATABASE "{name}"')
        layout = await stored_layout(url) if exists else None
        if layout is None:
            layout = Layout(
                args.big, args.edge or ranking.EXACT_ROWS + 5_000, args.others, args.other_rows,
                args.topics, args.topics_per_bot, args.noise, args.seed,
            )  # fmt: skip
            log(f"loading {sum(count for _, count in layout.chatbots()):,} rows into {name} ...")
            await build(url, layout)
        else:
            log(f"measuring the table kept in {name}")
        print(report(layout, await measure_all(url, layout, args.queries)))
        return 0
    finally:
        if not args.keep:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--postgres-url", required=True, help="a PostgreSQL server with pgvector (admin database)")
    parser.add_argument("--big", type=int, default=100_000, help="chunks of the big chatbot")
    parser.add_argument("--edge", type=int, default=0, help="chunks of the edge chatbot (default EXACT_ROWS + 5000)")
    parser.add_argument("--others", type=int, default=100, help="other chatbots sharing the table")
    parser.add_argument("--other-rows", type=int, default=10_000, help="chunks of each other chatbot")
    parser.add_argument("--topics", type=int, default=1_000, help="topics shared among the chatbots")
    parser.add_argument("--topics-per-bot", type=int, default=40, help="topics each chatbot covers")
    parser.add_argument("--noise", type=float, default=0.6, help="a chunk's distance from its sub-topic (norm)")
    parser.add_argument("--queries", type=int, default=200, help="questions per measured chatbot")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", metavar="NAME", help="keep the database under this name (and reuse it if it exists)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(run(parse_args(None))))
