"""The search engines a benchmark runs on (`BOTYARD_SEARCH`, docs/search.md): the `--search` and `--postgres-url`
options, and the database and settings of a server on each engine.

- `embedded` (the default): the service's default database, a SQLite file in the run's data directory (or, where a
  script lets `--postgres-url` choose the database, a fresh PostgreSQL database);
- `postgres`: a fresh database of its own on the `--postgres-url` server (which needs pgvector:
  `scripts/pgvector-server start`), made with `botyard search migrate` before the server starts, dropped afterwards;
- `both`: one after the other, in one run.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
from _harness import BOTYARD, Database, Server, SqliteDatabase, postgres_database

SEARCHES = ("embedded", "postgres", "both")
ENGINES = ("embedded", "postgres")
PGVECTOR_URL = "postgresql://postgres@127.0.0.1:5433/postgres"
"""`scripts/pgvector-server start`: PostgreSQL 18 with pgvector."""


def add_search_arguments(parser: argparse.ArgumentParser, postgres_url: str | None = PGVECTOR_URL) -> None:
    """`--search embedded|postgres|both` and `--postgres-url` (default `postgres_url`; None: none unless given)."""
    parser.add_argument(
        "--search",
        choices=SEARCHES,
        default="embedded",
        help="the search backend (BOTYARD_SEARCH): embedded, postgres (a server with pgvector), or both in one run",
    )
    default = f" (default {postgres_url})" if postgres_url else " (default: none, SQLite)"
    parser.add_argument(
        "--postgres-url",
        default=postgres_url,
        help=f"the PostgreSQL server (with pgvector for --search postgres) new databases are made on{default}",
    )


def engines(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The engines `--search` names, in the order they run; a usage error when postgres has no server."""
    if args.search != "embedded" and not args.postgres_url:
        parser.error("--search postgres and both need --postgres-url (a server with pgvector)")
    return list(ENGINES) if args.search == "both" else [args.search]


@contextlib.contextmanager
def fresh_database(postgres_url: str | None, data_dir: Path, prefix: str = "botyard_bench") -> Iterator[Database]:
    """A new, empty database on the server of `postgres_url` (named `prefix_<random>`, dropped afterwards), or with
    no URL the service's default SQLite file in `data_dir`."""
    if postgres_url:
        with postgres_database(postgres_url, prefix) as created:
            yield created
    else:
        yield SqliteDatabase(data_dir)


@contextlib.contextmanager
def engine_settings(engine: str, postgres_url: str | None, data_dir: Path, prefix: str) -> Iterator[dict[str, str]]:
    """The `BOTYARD_*` settings of a fresh server on `engine`: embedded on the default SQLite file in `data_dir`,
    postgres on a fresh database of its own on `postgres_url`'s server (dropped afterwards)."""
    with fresh_database(postgres_url if engine == "postgres" else None, data_dir, prefix) as database:
        yield database.env | {"BOTYARD_SEARCH": engine}


def search_migrate(env: dict[str, str]) -> None:
    """`botyard search migrate` with a server's environment, when it searches on postgres (a server refuses to start
    there before it: the search tables are not the migrations'); its progress goes to stderr."""
    if env.get("BOTYARD_SEARCH") != "postgres":
        return
    started = time.monotonic()
    command = [*BOTYARD, "search", "migrate"]
    subprocess.run(command, env=env, check=True, timeout=7200, stdout=sys.stderr)  # noqa: S603
    print(f"botyard search migrate: {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


def wait_healthy(base: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base}/healthz", timeout=5).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{base}/healthz did not answer 200 within {seconds:.0f} s")
        time.sleep(0.2)


@contextlib.contextmanager
def engine_server(
    engine: str, postgres_url: str | None, data_dir: Path, prefix: str, settings: Mapping[str, str] = {}
) -> Iterator[tuple[Server, str]]:
    """A fresh `botyard serve` on `engine` (`engine_settings`, and `settings` besides) with an owner's key, answering
    /healthz; stopped, and its database dropped, afterwards."""
    with engine_settings(engine, postgres_url, data_dir, prefix) as chosen:
        server = Server(data_dir, dict(settings) | chosen)
        search_migrate(server.env)
        key = server.create_key()
        with server.running():
            wait_healthy(server.base)
            yield server, key
