"""Alembic environment: runs the migrations on the configured database through the async engine."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

import botyard.models  # noqa: F401  (registers every table on the metadata)
from botyard.config import Settings
from botyard.db.base import Base
from botyard.db.engine import create_engine

target_metadata = Base.metadata


def _settings() -> Settings:
    given = context.config.attributes.get("settings")
    return given if isinstance(given, Settings) else Settings()


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_async() -> None:
    engine = create_engine(_settings())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
    else:
        asyncio.run(_run_async())


run()
