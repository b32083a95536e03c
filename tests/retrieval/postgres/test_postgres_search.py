"""The postgres search backend (`BOTYARD_SEARCH=postgres`) on a real PostgreSQL with pgvector: the same rankings,
decisions and scores (within float16's rounding) as the embedded index on the same knowledge; a knowledge change
searchable at once; `botyard search migrate` resumable; and the clear errors of a set-up that cannot serve."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.db.session import Database
from botyard.main import create_app
from tests.support.api import Api
from tests.support.cli import botyard
from tests.support.database import PGVECTOR_ENV, POSTGRES_ENV, fresh_settings
from tests.support.jobs import process
from tests.support.knowledge import add_qa, knowledge_bot
from tests.support.retrievals import QUERIES, issued_key, retrieve

pytestmark = [
    pytest.mark.skipif(not os.environ.get(PGVECTOR_ENV), reason=f"{PGVECTOR_ENV} is not set"),
    pytest.mark.timeout(600),
]


@contextmanager
def service(settings: Settings) -> Iterator[Api]:
    with TestClient(create_app(settings)) as client:
        yield Api(client, client.portal.call(issued_key, client))  # type: ignore[union-attr]


def outcomes(api: Api, bot: str) -> list[dict[str, Any]]:
    """Every query by every method: what each found, in order, and the decision."""
    found = []
    for query in QUERIES:
        for method in ("hybrid", "bm25", "dense"):
            result = retrieve(api, bot, query, method=method, top_k=10)
            found.append(
                {
                    "query": (query, method),
                    "texts": [chunk["text"] for chunk in result["chunks"]],
                    "relevant": result["relevant"],
                    "method": result["method"],
                    "reason": result["decision"]["reason"],
                    "score": result["decision"]["score"],
                    "scores": [chunk["scores"] for chunk in result["chunks"]],
                }
            )
    return found


def searched(backend: str, data_dir: Path, **settings: Any) -> list[dict[str, Any]]:
    data_dir.mkdir()
    with fresh_settings(backend, data_dir, jobs_in_process=False, **settings) as made:
        if made.search == "postgres":
            migrated = botyard(made, "search", "migrate")
            assert migrated.returncode == 0, migrated.stderr
        with service(made) as api:
            bot, _ = knowledge_bot(api)
            return outcomes(api, bot)


def test_the_same_answers_as_the_embedded_index(tmp_path: Path) -> None:
    embedded = searched("sqlite", tmp_path / "embedded")
    postgres = searched("pgvector", tmp_path / "postgres", search="postgres")
    for mine, theirs in zip(postgres, embedded, strict=True):
        # Rankings, methods and decisions exactly; scores within the vectors' rounding (int8 there, float16 here).
        for key in ("query", "texts", "relevant", "method", "reason"):
            assert mine[key] == theirs[key], (mine["query"], key, mine[key], theirs[key])
        assert mine["score"] == pytest.approx(theirs["score"], abs=0.01), mine["query"]
        for ours, other in zip(mine["scores"], theirs["scores"], strict=True):
            assert ours.keys() == other.keys()
            assert all(ours[key] == pytest.approx(other[key], abs=0.01) for key in ours), (mine["query"], ours, other)
    assert any(each["relevant"] for each in postgres) and not all(each["relevant"] for each in postgres)


def test_a_knowledge_change_is_searched_at_once_and_migrate_resumes(tmp_path: Path) -> None:
    with fresh_settings("pgvector", tmp_path, jobs_in_process=False, search="postgres") as settings:
        assert botyard(settings, "search", "migrate").returncode == 0
        with service(settings) as api:
            bot, sources = knowledge_bot(api, ["hours", "refunds"])
            assert retrieve(api, bot, "opening hours")["relevant"]
            shipping = add_qa(api, bot, "shipping")
            process(api.client)
            found = retrieve(api, bot, "international shipping costs")
            assert found["relevant"] and found["chunks"][0]["data_source_uuid"] == shipping
            api.ok(api.delete(f"/data-source/{sources['refunds']}/delete"))
            after = retrieve(api, bot, "refund of the full price", top_k=10)
            assert sources["refunds"] not in {chunk["data_source_uuid"] for chunk in after["chunks"]}
        # Run again: every chatbot is at its version already, nothing is redone.
        again = botyard(settings, "search", "migrate")
        assert again.returncode == 0 and "0 of 1 chatbots caught up" in again.stdout, again.stdout


def test_an_embedder_change_is_refused_not_mixed(tmp_path: Path) -> None:
    with fresh_settings("pgvector", tmp_path, jobs_in_process=False, search="postgres") as settings:
        assert botyard(settings, "search", "migrate").returncode == 0

        async def other_embedder() -> None:
            database = Database.from_settings(settings)
            async with database.transaction() as session:
                await session.execute(text("UPDATE search_meta SET value = 'minilm 384' WHERE key = 'embedder'"))
            await database.dispose()

        asyncio.run(other_embedder())
        with pytest.raises(Exception, match="embeds with") as refused, TestClient(create_app(settings)):
            pass
        assert "botyard search migrate" in str(refused.value)


def test_clear_errors_where_the_search_cannot_run(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    # The tables were never made: the database served the embedded search, and `botyard search migrate` never ran.
    with fresh_settings("pgvector", tmp_path / "a", search="embedded") as settings:
        switched = settings.model_copy(update={"search": "postgres"})
        with pytest.raises(Exception, match="botyard search migrate"), TestClient(create_app(switched)):
            pass
    if os.environ.get(POSTGRES_ENV):  # the system PostgreSQL has no pgvector
        (tmp_path / "b").mkdir()
        with fresh_settings("postgres", tmp_path / "b", search="postgres") as settings:
            refused = botyard(settings, "search", "migrate")
            assert refused.returncode == 1 and "vector` extension" in refused.stderr, refused.stderr
    with (
        pytest.raises(Exception, match="BOTYARD_DATABASE_URL"),
        TestClient(create_app(Settings(data_dir=tmp_path, search="postgres"))),
    ):
        pass


def rows_of(settings: Settings, chatbot_uuid: str) -> dict[str, int]:
    """The chatbot's rows in each search table."""

    async def go() -> dict[str, int]:
        database = Database.from_settings(settings)
        try:
            async with database.transaction(write=False) as session:
                return {
                    table: int(
                        await session.scalar(
                            text(f"SELECT count(*) FROM {table} WHERE chatbot_uuid = :bot"),
                            {"bot": chatbot_uuid},
                        )
                        or 0
                    )
                    for table in ("search_chunk", "search_posting", "search_term", "search_state")
                }
        finally:
            await database.dispose()

    return asyncio.run(go())


def test_a_deleted_chatbots_rows_go_with_it(tmp_path: Path) -> None:
    with fresh_settings("pgvector", tmp_path, jobs_in_process=False, search="postgres") as settings:
        with service(settings) as api:
            kept, _ = knowledge_bot(api, ["hours"])
            deleted, _ = knowledge_bot(api, ["hours", "refunds"])
            for bot in (kept, deleted):
                assert retrieve(api, bot, "opening hours")["relevant"]
            assert all(rows_of(settings, deleted).values()), rows_of(settings, deleted)
            api.ok(api.delete(f"/chatbot/{deleted}/delete"))
            assert set(rows_of(settings, deleted).values()) == {0}
            assert all(rows_of(settings, kept).values())
            assert retrieve(api, kept, "opening hours")["relevant"]
            # A chatbot deleted before its deletion dropped its rows (the rows put back as they were): migrate does.
            orphan, _ = knowledge_bot(api, ["refunds"])
            assert retrieve(api, orphan, "refund of the full price")["relevant"]

        async def delete_only_the_chatbot() -> None:
            database = Database.from_settings(settings)
            async with database.transaction() as session:
                await session.execute(text("DELETE FROM chatbot WHERE uuid = :bot"), {"bot": orphan})
            await database.dispose()

        asyncio.run(delete_only_the_chatbot())
        assert all(rows_of(settings, orphan).values())
        migrated = botyard(settings, "search", "migrate")
        assert migrated.returncode == 0 and "the rows of 1 deleted chatbots dropped" in migrated.stdout, migrated.stdout
        assert set(rows_of(settings, orphan).values()) == {0}
        assert all(rows_of(settings, kept).values())
        assert vacuumed(settings) == {"search_chunk", "search_posting", "search_term", "search_state"}


def vacuumed(settings: Settings) -> set[str]:
    """The search tables a VACUUM (ANALYZE) went over (the postings are read by index alone: a visibility map)."""

    async def go() -> set[str]:
        database = Database.from_settings(settings)
        try:
            async with database.transaction(write=False) as session:
                statement = text(
                    "SELECT relname FROM pg_stat_user_tables WHERE relname LIKE 'search\\_%' "
                    "AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL"
                )
                return set((await session.scalars(statement)).all())
        finally:
            await database.dispose()

    return asyncio.run(go())
