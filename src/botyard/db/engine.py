"""Engine construction for SQLite (embedded default) and PostgreSQL.

SQLite runs in WAL mode with foreign keys and a busy timeout. Write transactions start with `BEGIN IMMEDIATE`:
a deferred transaction that reads and then writes can fail at once with "database is locked" when another writer
got in between, whereas an immediate one waits for the lock (up to the busy timeout).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from botyard.config import Settings

SQLITE_BEGIN = "sqlite_begin"


def create_engine(settings: Settings) -> AsyncEngine:
    url = settings.resolved_database_url
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30}, **_pool(settings))
        _configure_sqlite(engine)
        return engine
    return create_async_engine(url, pool_pre_ping=True, **_pool(settings))


def _pool(settings: Settings) -> dict[str, Any]:
    return {
        "echo": settings.database_echo,
        "pool_size": settings.database_pool_size,
        "max_overflow": settings.database_pool_overflow,
    }


def writer(engine: AsyncEngine) -> AsyncEngine:
    """The same engine, but its transactions take SQLite's write lock up front (no effect on PostgreSQL)."""
    return engine.execution_options(**{SQLITE_BEGIN: "IMMEDIATE"})


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, emit BEGIN so that we choose its mode below.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get(SQLITE_BEGIN, "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")
