"""The test databases: a fresh migrated database per backend (SQLite in a directory, or a PostgreSQL database
created on a test server and dropped afterwards), work on the app's own database, and a dump of everything stored.

The backends: "sqlite"; "postgres", on the server of BOTYARD_TEST_POSTGRES_URL (the system's PostgreSQL 15 in CI);
"pgvector", on the server of BOTYARD_TEST_PGVECTOR_URL (PostgreSQL 18 with pgvector, scripts/pgvector-server), which
only the test packages that exercise search run on (SEARCH_PACKAGES)."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import pytest
from sqlalchemy import delete
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.db.base import Base
from botyard.db.migrate import upgrade
from botyard.db.session import Database
from tests.support.waiting import START

T = TypeVar("T")
POSTGRES_ENV = "BOTYARD_TEST_POSTGRES_URL"
PGVECTOR_ENV = "BOTYARD_TEST_PGVECTOR_URL"
SERVERS = {"postgres": POSTGRES_ENV, "pgvector": PGVECTOR_ENV}
# The search engine of the "pgvector" backend's app: the postgres search backend, whose tables are made once the
# database is migrated (as `botyard search migrate` makes them).
PGVECTOR_SEARCH = "postgres"
# The test packages (under tests/) that exercise search, whose tests also run on the "pgvector" backend; the rest of
# the suite runs on two backends only, since a third would add its whole time.
SEARCH_PACKAGES = ("retrieval", "answering", "ingestion")
# Of those, the folders of tests about the embedded search backend's own machinery (its indexes, snapshots, warmer).
EMBEDDED_ONLY = ("retrieval/embedded",)


def backend_params(*, pgvector: bool = False) -> list[Any]:
    """The backends to parametrize by: "sqlite", "postgres" and, with `pgvector`, "pgvector"; each server's backend
    is skipped when its variable is not set."""
    servers = {"postgres": "PostgreSQL tests need a server (CI sets it)"}
    if pgvector:
        servers["pgvector"] = "pgvector tests need PostgreSQL with pgvector (scripts/pgvector-server start; CI sets it)"
    params: list[Any] = ["sqlite"]
    for backend, why in servers.items():
        unset = not os.environ.get(SERVERS[backend])
        marks = [pytest.mark.skip(reason=f"{SERVERS[backend]} is not set: {why}")] if unset else []
        params.append(pytest.param(backend, marks=marks))
    return params


async def _admin(url: str, sql: str) -> None:
    parsed = make_url(url).set(drivername="postgresql")
    connection = await asyncpg.connect(parsed.render_as_string(hide_password=False))
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@contextmanager
def fresh_settings(backend: str, data_dir: Path, **overrides: Any) -> Iterator[Settings]:
    """Settings on a new, migrated database of `backend` ("sqlite" in `data_dir`, or a PostgreSQL database created
    on the backend's test server and dropped afterwards; "pgvector" with the vector extension, and its app searching
    with PGVECTOR_SEARCH unless `overrides` say otherwise)."""
    if backend == "sqlite":
        settings = Settings(data_dir=data_dir, **overrides)
        upgrade(settings)
        yield settings
        return
    if backend == "pgvector":
        overrides = {"search": PGVECTOR_SEARCH, **overrides}
    with _server_database(backend) as url:
        settings = Settings(data_dir=data_dir, database_url=url, **overrides)
        upgrade(settings)
        if settings.search == "postgres" and backend == "pgvector":
            asyncio.run(_search_tables(settings))
        yield settings


async def _search_tables(settings: Settings) -> None:
    """The postgres search backend's tables for the settings' embedder (`botyard search migrate` in one step: a new
    database has no chunk to fill them from)."""
    from botyard.embedding import build_embedder
    from botyard.retrieval.postgres.repository import schema

    embedder = build_embedder(settings)
    database = Database.from_settings(settings)
    try:
        async with database.engine.begin() as connection:
            parts = tuple(embedder.parts) if embedder is not None and embedder.parts else ()
            await schema.create(connection, embedder.name if embedder is not None else "none", parts)
    finally:
        await database.dispose()


@contextmanager
def _server_database(backend: str) -> Iterator[str]:
    """The URL of a new database on the backend's server, dropped afterwards."""
    server = os.environ[SERVERS[backend]]
    name = f"botyard_test_{secrets.token_hex(6)}"
    # Failing here (server unreachable while the variable is set) fails the tests: they must not skip silently.
    asyncio.run(_admin(server, f'CREATE DATABASE "{name}"'))
    try:
        url = make_url(server).set(database=name).render_as_string(False)
        if backend == "pgvector":
            # Before the migrations, as an operator does once per database (creating it takes rights the app may lack).
            asyncio.run(_admin(url, "CREATE EXTENSION IF NOT EXISTS vector"))
        yield url
    finally:
        asyncio.run(_admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def database_dump(settings: Settings) -> str:
    """Everything stored: the SQLite files' bytes, or every PostgreSQL row rendered as text."""
    if settings.is_sqlite:
        files = sorted(settings.data_dir.glob("botyard.sqlite3*"))
        assert files
        # Read by another process: closing any descriptor of the database file in this process would drop the POSIX
        # locks the app's own connections hold, and another process (a worker) could then reset the shared WAL index.
        copy = "import sys, shutil; [shutil.copyfileobj(open(p, 'rb'), sys.stdout.buffer) for p in sys.argv[1:]]"
        read = subprocess.run(
            [sys.executable, "-c", copy, *map(str, files)], capture_output=True, check=True, timeout=START
        )
        return read.stdout.decode("latin-1")
    return asyncio.run(_postgres_dump(settings.resolved_database_url))


async def _postgres_dump(url: str) -> str:
    connection = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(False))
    try:
        rows = []
        for table in Base.metadata.sorted_tables:
            rows += [str(row[0]) for row in await connection.fetch(f'SELECT t::text FROM "{table.name}" t')]
        return "\n".join(rows)
    finally:
        await connection.close()


class Db:
    """Runs work against the app's own database, on the app's event loop."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    @property
    def database(self) -> Database:
        database: Database = self.client.app.state.database  # type: ignore[attr-defined]
        return database

    def run(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        async def go() -> T:
            async with self.database.transaction() as session:
                return await work(session)

        assert self.client.portal is not None
        return self.client.portal.call(go)

    def wipe(self) -> None:
        async def go(session: AsyncSession) -> None:
            for table in reversed(Base.metadata.sorted_tables):
                await session.execute(delete(table))

        self.run(go)
        # The dashboard's settings went with their row: the app uses its own again now, not at its next look.
        live = getattr(self.client.app.state, "live_settings", None)  # type: ignore[attr-defined]
        if live is not None:
            assert self.client.portal is not None
            self.client.portal.call(live.refresh)
