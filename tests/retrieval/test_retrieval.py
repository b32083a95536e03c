"""Retrieval through the real app: sources created through the API, ingested and embedded by the real job
handlers (the bundled MiniLM), then searched through `POST /chatbot/{uuid}/retrieve` on both databases."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.ingestion.tokens import count_tokens
from botyard.main import create_app
from botyard.retrieval.base import QUOTED_HITS, Retrieval
from botyard.retrieval.relevance import JUDGED_HITS
from botyard.retrieval.retriever import Retriever
from botyard.sources.repository import IndexReads
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.database import POSTGRES_ENV, Db, fresh_settings
from tests.support.embedders import FakeEmbedder
from tests.support.jobs import process
from tests.support.knowledge import KNOWLEDGE, add_qa, knowledge_bot
from tests.support.retrievals import OFF_TOPIC, QUERIES, issued_key, retrieve
from tests.support.retrievers import embedded, embedded_retriever
from tests.support.sources import upload


def best_source(result: dict[str, Any]) -> str:
    source: str = result["chunks"][0]["data_source_uuid"]
    return source


@pytest.fixture
def shop(alice: Api) -> tuple[str, dict[str, str]]:
    return knowledge_bot(alice)


def test_each_question_finds_its_own_source_first(alice: Api, shop: tuple[str, dict[str, str]]) -> None:
    bot, sources = shop
    # Paraphrases that share few words with the stored text: the dense half of the hybrid carries them.
    for query, key in [
        ("What time do you open on Saturday?", "hours"),
        ("How can I get my money back for an item?", "refunds"),
        ("Do you deliver to Germany and how long does it take?", "shipping"),
        ("I forgot my login credentials", "password"),
    ]:
        result = retrieve(alice, bot, query)
        assert result["method"] == "hybrid"
        assert result["relevant"] is True, query
        assert best_source(result) == sources[key], query
        best = result["chunks"][0]
        assert best["title"] == KNOWLEDGE[key][0]
        assert KNOWLEDGE[key][1] in best["text"]
        assert set(best["scores"]) == {"bm25", "dense"}
        assert 0 <= best["scores"]["bm25"] <= 1 and -1 <= best["scores"]["dense"] <= 1
        scores = [chunk["score"] for chunk in result["chunks"]]
        assert scores == sorted(scores, reverse=True)


def test_methods_can_be_compared_and_top_k_is_honoured(alice: Api, shop: tuple[str, dict[str, str]]) -> None:
    bot, sources = shop
    query = "refund of the full price"
    for method in ("hybrid", "bm25", "dense"):
        result = retrieve(alice, bot, query, method=method, top_k=2)
        assert result["method"] == method
        assert len(result["chunks"]) <= 2
        assert best_source(result) == sources["refunds"]
    # BM25 alone returns only chunks sharing a term; dense ranks every chunk.
    assert len(retrieve(alice, bot, "password", method="bm25", top_k=10)["chunks"]) == 1
    assert len(retrieve(alice, bot, "password", method="dense", top_k=10)["chunks"]) == len(KNOWLEDGE)


def test_an_off_topic_question_is_not_relevant(alice: Api, shop: tuple[str, dict[str, str]]) -> None:
    bot, _ = shop
    for query in OFF_TOPIC:
        result = retrieve(alice, bot, query)
        assert result["relevant"] is False, (query, result["chunks"][:1])


def test_scope_by_agent_sources(alice: Api, shop: tuple[str, dict[str, str]]) -> None:
    bot, sources = shop
    agent = alice.ok(alice.post(f"/chatbot/{bot}/agent/create", {"name": "Accounts", "type": "user-facing"}))
    update = {"data_source_uuids": [sources["password"], sources["shipping"]], "use_all_sources": False}
    alice.ok(alice.post(f"/agent/{agent['uuid']}/update", update))
    result = retrieve(alice, bot, "How can I get my money back?", agent_uuid=agent["uuid"], top_k=10)
    assert {chunk["data_source_uuid"] for chunk in result["chunks"]} <= {sources["password"], sources["shipping"]}
    assert sources["refunds"] not in {chunk["data_source_uuid"] for chunk in result["chunks"]}
    assert best_source(retrieve(alice, bot, "reset password", agent_uuid=agent["uuid"])) == sources["password"]
    # use_all_sources brings everything back.
    alice.ok(alice.post(f"/agent/{agent['uuid']}/update", {"use_all_sources": True}))
    result = retrieve(alice, bot, "How can I get my money back?", agent_uuid=agent["uuid"])
    assert best_source(result) == sources["refunds"]


def test_scope_by_source_uuids_in_the_retriever(alice: Api, db: Db, shop: tuple[str, dict[str, str]]) -> None:
    bot, sources = shop
    retriever: Retriever = alice.client.app.state.runtime.retriever  # type: ignore[attr-defined]

    def run(scope: list[str] | None) -> Retrieval:
        return db.run(lambda session: retriever.retrieve(session, bot, "shop opening hours", source_uuids=scope))

    assert run(None).hits[0].data_source_uuid == sources["hours"]
    scoped = run([sources["refunds"], sources["shipping"]])
    assert scoped.hits and {hit.data_source_uuid for hit in scoped.hits} <= {sources["refunds"], sources["shipping"]}
    assert run([]).hits == []
    assert run(["0" * 32]).hits == []  # a uuid that is not a source of the chatbot


def test_hits_carry_the_token_counts_made_at_ingestion(alice: Api, db: Db, shop: tuple[str, dict[str, str]]) -> None:
    bot, _ = shop
    retriever: Retriever = alice.client.app.state.runtime.retriever  # type: ignore[attr-defined]
    hits = db.run(lambda session: retriever.retrieve(session, bot, "shop opening hours")).hits
    assert hits and all(hit.tokens == count_tokens(hit.text) > 0 for hit in hits)


def test_the_passages_of_every_quoted_hit_are_scored(alice: Api, db: Db, shop: tuple[str, dict[str, str]]) -> None:
    # The offline answerer quotes from more chunks than the relevance decision judges: each needs its passages' cosines.
    bot, _ = shop
    for number in range(QUOTED_HITS - len(KNOWLEDGE) + 2):
        alice.ok(
            alice.post(
                f"/chatbot/{bot}/data-source/qa",
                {
                    "question": f"Is the shop open on holiday {number}?",
                    "answer": f"The shop opens late on day {number}.",
                },
            )
        )
    process(alice.client)
    retriever: Retriever = alice.client.app.state.runtime.retriever  # type: ignore[attr-defined]
    found = db.run(lambda session: retriever.retrieve(session, bot, "shop opening hours", top_k=10, passages=True))
    assert found.relevant and len(found.hits) > QUOTED_HITS > JUDGED_HITS
    assert all(hit.passage_similarity for hit in found.hits[:QUOTED_HITS])
    assert all(hit.passage_similarity is None for hit in found.hits[QUOTED_HITS:])


def test_search_follows_the_knowledge_version(alice: Api) -> None:
    """On either search backend, an added, deleted or retitled source is what the next search finds (the embedded
    index's own reuse of an unchanged index: tests/retrieval/embedded/test_index_versions.py)."""
    bot, sources = knowledge_bot(alice, ["hours", "refunds"])
    shipping = add_qa(alice, bot, "shipping")
    process(alice.client)
    assert best_source(retrieve(alice, bot, "international shipping costs")) == shipping

    alice.ok(alice.delete(f"/data-source/{sources['refunds']}/delete"))
    after_delete = retrieve(alice, bot, "refund of the full price", top_k=10)
    assert sources["refunds"] not in {chunk["data_source_uuid"] for chunk in after_delete["chunks"]}

    alice.ok(alice.post(f"/data-source/{sources['hours']}/update", {"title": "Springfield store times"}))
    assert retrieve(alice, bot, "store times")["chunks"][0]["title"] == "Springfield store times"


def test_keyword_search_alone_without_an_embedder(alice: Api, db: Db, shop: tuple[str, dict[str, str]]) -> None:
    bot, sources = shop
    settings: Settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    retriever = embedded_retriever(None, settings)  # BOTYARD_EMBEDDER=none
    found = db.run(lambda session: retriever.retrieve(session, bot, "reset my password"))
    assert found.method == "bm25"
    assert found.relevant
    assert found.hits[0].data_source_uuid == sources["password"]
    assert set(found.hits[0].scores) == {"bm25"}
    missed = db.run(lambda session: retriever.retrieve(session, bot, "football world cup winners"))
    assert not missed.relevant


def test_the_cache_is_bounded_by_chunks(alice: Api, db: Db) -> None:
    first, _ = knowledge_bot(alice, ["hours", "refunds"])
    second, second_sources = knowledge_bot(alice, ["shipping", "password"])
    settings: Settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    retriever = embedded_retriever(None, settings.model_copy(update={"retrieval_cache_chunks": 3}))
    db.run(lambda session: retriever.retrieve(session, first, "opening hours"))
    assert embedded(retriever).cached_chunks == 2
    found = db.run(lambda session: retriever.retrieve(session, second, "reset password"))
    assert embedded(retriever).cached_chunks == 2  # the first chatbot's index was evicted
    assert found.hits[0].data_source_uuid == second_sources["password"]
    assert db.run(lambda session: retriever.retrieve(session, first, "opening hours")).hits


def test_bad_requests_and_other_accounts(alice: Api, bob: Api) -> None:
    bot: str = alice.chatbot()["uuid"]
    for body in ({}, {"query": ""}, {"query": "   "}, {"query": "x", "top_k": 0}, {"query": "x", "top_k": 51}):
        assert_error(alice.post(f"/chatbot/{bot}/retrieve", body), 422, "validation_error")
    assert_error(alice.post(f"/chatbot/{bot}/retrieve", {"query": "x", "method": "magic"}), 422, "validation_error")
    assert_not_found(bob.post(f"/chatbot/{bot}/retrieve", {"query": "opening hours"}))
    assert_not_found(alice.post(f"/chatbot/{'0' * 32}/retrieve", {"query": "opening hours"}))
    other_bot: str = alice.chatbot("Other")["uuid"]
    other_agent = alice.ok(alice.post(f"/chatbot/{other_bot}/agent/create", {"name": "A", "type": "user-facing"}))
    assert_not_found(alice.post(f"/chatbot/{bot}/retrieve", {"query": "x", "agent_uuid": other_agent["uuid"]}))
    empty = retrieve(alice, bot, "opening hours")
    assert (empty["relevant"], empty["method"], empty["chunks"]) == (False, "hybrid", [])
    assert empty["decision"]["reason"] == "nothing_found" and empty["decision"]["best_chunk"] is None


# Identical results on SQLite and PostgreSQL: one app on each, the same sources, the same queries.


def _results_on(backend: str, data_dir: Path) -> list[dict[str, Any]]:
    data_dir.mkdir()
    with (
        fresh_settings(backend, data_dir, jobs_in_process=False) as settings,
        TestClient(create_app(settings)) as client,
    ):
        issued = client.portal.call(issued_key, client)  # type: ignore[union-attr]
        api = Api(client, issued)
        bot, _ = knowledge_bot(api)
        outcomes = []
        for query in QUERIES:
            for method in ("hybrid", "bm25", "dense"):
                result = retrieve(api, bot, query, method=method, top_k=10)
                best = result["decision"]["best_chunk"]  # uuids differ between the two databases: rank instead
                uuids = [chunk["uuid"] for chunk in result["chunks"]]
                result["decision"]["best_chunk"] = uuids.index(best) if best is not None else None
                for chunk in result["chunks"]:  # all the rest must not differ
                    del chunk["uuid"], chunk["data_source_uuid"]
                outcomes.append(result)
        return outcomes


@pytest.mark.skipif(not os.environ.get(POSTGRES_ENV), reason=f"{POSTGRES_ENV} is not set")
def test_identical_results_on_both_databases(tmp_path: Path) -> None:
    on_sqlite = _results_on("sqlite", tmp_path / "sqlite")
    on_postgres = _results_on("postgres", tmp_path / "postgres")
    assert on_sqlite == on_postgres
    assert any(result["relevant"] for result in on_sqlite)
    assert not all(result["relevant"] for result in on_sqlite)


def test_a_query_is_embedded_once_for_routing_and_retrieval(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    retriever = embedded_retriever(embedder, Settings(data_dir=tmp_path))

    async def twice() -> tuple[Any, Any, Any]:
        first = await retriever.embed_query("When do you open?")
        again = await retriever.embed_query("When do you open?")
        other = await retriever.embed_query("Do you ship abroad?")
        return first, again, other

    first, again, other = asyncio.run(twice())
    assert first is again and other is not None and embedder.calls == 2


def test_the_rows_of_one_source_share_its_values(alice: Api, db: Db) -> None:
    # An index holds a row per chunk: each row repeating its source's title and meta cost about 400 B at 100k.
    bot = alice.chatbot()["uuid"]
    sections = [f"# Section {n}\n\n" + f"Paragraph {n} tells the story of the shop. " * 60 for n in range(6)]
    upload(alice, bot, "story.md", "\n\n".join(sections).encode())
    process(alice.client)
    rows, _ = db.run(lambda session: IndexReads(session).chunks(bot, None))
    assert len(rows) >= 2 and len({row.uuid for row in rows}) == len(rows)
    assert all(row.source_meta is rows[0].source_meta and row.source_title is rows[0].source_title for row in rows)
    assert not hasattr(rows[0], "__dict__")
    # Vectors come as the rows stream in, each halved at once: a build never holds every float32 vector.
    embedder = alice.client.app.state.retriever.embedder  # type: ignore[attr-defined]
    _, vectors = db.run(lambda session: IndexReads(session).chunks(bot, embedder.name))
    assert len(vectors) == len(rows)
    assert all(isinstance(each, np.ndarray) and each.dtype == np.float16 for each in vectors)
    assert {each.shape for each in vectors} == {(embedder.dimension,)}
