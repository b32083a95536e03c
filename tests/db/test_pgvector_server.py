"""The "pgvector" test backend's server (BOTYARD_TEST_PGVECTOR_URL, scripts/pgvector-server) is PostgreSQL with
pgvector 0.8 or later: an HNSW index on a halfvec column builds, and answers a filtered query with iterative scans."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from tests.support.database import PGVECTOR_ENV, fresh_settings

pytestmark = pytest.mark.skipif(
    not os.environ.get(PGVECTOR_ENV),
    reason=f"{PGVECTOR_ENV} is not set: pgvector tests need PostgreSQL with pgvector (scripts/pgvector-server start)",
)

# 200 points on a helix in three dimensions; row 50's own vector is the query.
ROWS = """
CREATE TABLE points (id integer PRIMARY KEY, embedding halfvec(3) NOT NULL);
INSERT INTO points SELECT i, ARRAY[cos(i / 10.0), sin(i / 10.0), i / 200.0]::real[]::halfvec(3)
FROM generate_series(1, 200) AS i;
CREATE INDEX points_hnsw ON points USING hnsw (embedding halfvec_l2_ops);
"""
QUERY = "(SELECT embedding FROM points WHERE id = 50)"


async def _check(url: str) -> None:
    connection = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(False))
    try:
        version = await connection.fetchval("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert version is not None, "the database has no vector extension"
        assert tuple(int(part) for part in version.split(".")[:2]) >= (0, 8), f"pgvector {version}: 0.8 or later"
        await connection.execute(ROWS)
        # An unknown `hnsw.` setting would only be a placeholder: SHOW reads back pgvector 0.8's own.
        await connection.execute("SET hnsw.iterative_scan = relaxed_order; SET enable_seqscan = off")
        assert await connection.fetchval("SHOW hnsw.iterative_scan") == "relaxed_order"
        nearest = f"SELECT id FROM points ORDER BY embedding <-> {QUERY} LIMIT 1"
        assert "points_hnsw" in "\n".join(row[0] for row in await connection.fetch(f"EXPLAIN {nearest}"))
        assert await connection.fetchval(nearest) == 50
        # A filter that keeps one row in ten, beyond a search list of 10: only an iterative scan fills the limit.
        await connection.execute("SET hnsw.ef_search = 10")
        filtered = f"SELECT id FROM points WHERE id % 10 = 0 ORDER BY embedding <-> {QUERY} LIMIT 8"
        found = [row[0] for row in await connection.fetch(filtered)]
        assert len(found) == 8 and all(id_ % 10 == 0 for id_ in found), found
    finally:
        await connection.close()


def test_the_pgvector_server_builds_and_scans_an_hnsw_index_on_halfvec(tmp_path: Path) -> None:
    with fresh_settings("pgvector", tmp_path) as settings:
        asyncio.run(_check(settings.resolved_database_url))
