from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection

from botyard.db.base import Base
from tests.support.database import Db


def test_migrations_match_the_models(client: object, db: Db) -> None:
    """The schema the migrations build is exactly the one the models describe (else: scripts/new-migration)."""

    def diff(connection: Connection) -> list[Any]:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))

    async def run() -> list[Any]:
        async with db.database.engine.connect() as connection:
            return await connection.run_sync(diff)

    assert db.client.portal is not None
    assert db.client.portal.call(run) == []
