"""The embedding stage of ingestion: vectors stored with the chunks, the `embedding` status, failures, and
re-embedding when the configured embedder changes. Real bundled model, real job runner, both databases."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.embedding import Embedder, Vectors, decode_matrix, decode_vector
from botyard.embedding.openai_compat import OpenAIEmbedder
from botyard.jobs.kinds import JobKind
from botyard.models import Chunk, DataSource, Job
from botyard.passages import passages
from botyard.runtime import Runtime
from botyard.sources.processing.embed import embedding_text, enqueue_reembedding
from botyard.sources.processing.stages import SHOW_AFTER
from tests.support.api import Api
from tests.support.database import Db
from tests.support.embedders import FakeEmbedder
from tests.support.embedding_server import EmbeddingServer
from tests.support.jobs import process
from tests.support.sources import ARTICLE, chunks, knowledge_version, source
from tests.support.web_site import Page, WebSite

QUESTION, ANSWER = "Do you ship abroad?", "Yes, to every country of the European Union within three working days."


class StatusProbe(FakeEmbedder):
    """Delegates to the real model after noting the sources' statuses while their chunks are being embedded, for as
    long as a lasting stage takes to show (a stage shows only once it lasted `SHOW_AFTER`)."""

    def __init__(self, runtime: Runtime) -> None:
        super().__init__()
        assert runtime.embedder is not None
        self.real: Embedder = runtime.embedder
        self.database = runtime.database
        self.seen: set[str] = set()

    @property
    def name(self) -> str:
        return self.real.name

    @property
    def dimension(self) -> int:
        return self.real.dimension

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        deadline = asyncio.get_running_loop().time() + SHOW_AFTER + 60  # a bound, not a measure: it ends when seen
        while "embedding" not in self.seen and asyncio.get_running_loop().time() < deadline:
            async with self.database.transaction(write=False) as session:
                self.seen |= set(await session.scalars(select(DataSource.status)))
            await asyncio.sleep(0.02)
        return await self.real.embed_documents(texts)


@pytest.fixture(scope="module")
def site() -> Iterator[WebSite]:
    server = WebSite()
    yield server
    server.close()


@pytest.fixture
def bot(alice: Api) -> str:
    uuid: str = alice.chatbot()["uuid"]
    return uuid


def runtime_of(client: TestClient) -> Runtime:
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    return runtime


def reembed(client: TestClient, embedder: Embedder | None) -> int:
    """What a starting worker with `embedder` does: queue the re-embedding of chunks it did not embed."""
    assert client.portal is not None
    return client.portal.call(enqueue_reembedding, runtime_of(client).database, embedder)


def qa(api: Api, bot: str) -> str:
    uuid: str = api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": QUESTION, "answer": ANSWER}))["uuid"]
    return uuid


def test_chunks_are_stored_with_the_bundled_models_vectors(alice: Api, bot: str, db: Db) -> None:
    uuid = qa(alice, bot)
    process(alice.client)
    assert source(alice, uuid)["status"] == "success"
    [chunk] = chunks(db, uuid)
    embedder = runtime_of(alice.client).embedder
    assert embedder is not None and chunk.embedder == embedder.name == "minilm-l6-v2-int8+use-m3-v1"
    assert chunk.embedding is not None
    vector = decode_vector(chunk.embedding)
    assert vector.shape == (896,)  # MiniLM's 384 and USE-m3's 512: both read English, so both parts are unit vectors
    assert np.allclose([np.linalg.norm(vector[:384]), np.linalg.norm(vector[384:])], 1.0, atol=1e-5)
    assert alice.client.portal is not None
    expected = alice.client.portal.call(embedder.embed_query, embedding_text(chunk.heading, chunk.text))
    assert np.allclose(vector, expected, atol=1e-5)


def test_each_passage_of_a_chunk_gets_its_own_vector(alice: Api, bot: str, db: Db) -> None:
    uuid = qa(alice, bot)
    process(alice.client)
    [chunk] = chunks(db, uuid)
    embedder = runtime_of(alice.client).embedder
    assert embedder is not None and chunk.passage_vectors is not None
    found = passages(chunk.text)
    matrix = decode_matrix(chunk.passage_vectors, embedder.dimension)
    assert matrix.shape == (len(found), 896) and len(found) >= 2  # the question and the answer's sentences
    assert alice.client.portal is not None
    for passage, stored in zip(found, matrix, strict=True):
        expected = alice.client.portal.call(embedder.embed_query, embedding_text(chunk.heading, passage.text))
        assert np.allclose(stored, expected, atol=2e-3)  # float16 storage


def test_chunks_stored_before_passage_vectors_get_them_in_place(alice: Api, bot: str, db: Db) -> None:
    uuid = qa(alice, bot)
    process(alice.client)
    [before] = chunks(db, uuid)

    async def forget(session: AsyncSession) -> None:  # as a chunk stored by an earlier version is
        await session.execute(update(Chunk).where(Chunk.uuid == before.uuid).values(passage_vectors=None))

    db.run(forget)
    minilm = runtime_of(alice.client).embedder
    assert reembed(alice.client, minilm) == 1
    process(alice.client, minilm)
    [after] = chunks(db, uuid)
    assert after.uuid == before.uuid and after.passage_vectors == before.passage_vectors
    assert reembed(alice.client, minilm) == 0


def test_a_page_goes_through_the_embedding_stage(alice: Api, bot: str, db: Db, site: WebSite) -> None:
    site.pages["/hours"] = Page(ARTICLE)
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/hours")}))
    probe = StatusProbe(runtime_of(alice.client))
    process(alice.client, probe)
    assert "embedding" in probe.seen
    assert source(alice, created["uuid"])["status"] == "success"
    stored = chunks(db, created["uuid"])
    assert stored and all(chunk.embedder == probe.name and chunk.embedding for chunk in stored)
    assert all(decode_vector(chunk.embedding or b"").shape == (896,) for chunk in stored)


def test_without_an_embedder_chunks_have_no_vectors(alice: Api, bot: str, db: Db) -> None:
    uuid = qa(alice, bot)
    process(alice.client, None)
    assert source(alice, uuid)["status"] == "success"
    [chunk] = chunks(db, uuid)
    assert chunk.embedding is None and chunk.embedder is None
    assert reembed(alice.client, None) == 0  # keyword search only: nothing to embed


def test_switching_the_embedder_re_embeds_stored_chunks_in_place(alice: Api, bot: str, db: Db) -> None:
    uuid = qa(alice, bot)
    process(alice.client, None)
    [before] = chunks(db, uuid)
    version = knowledge_version(db, bot)

    minilm = runtime_of(alice.client).embedder
    assert reembed(alice.client, minilm) == 1
    assert reembed(alice.client, minilm) == 0  # its job is already waiting
    process(alice.client, minilm)
    [after] = chunks(db, uuid)
    assert after.uuid == before.uuid and after.text == before.text
    assert minilm is not None and after.embedder == minilm.name
    assert decode_vector(after.embedding or b"").shape == (896,)
    assert knowledge_version(db, bot) == version + 1  # the retrieval caches see the new vectors
    assert source(alice, uuid)["status"] == "success"

    other = FakeEmbedder("fake-v2")
    assert reembed(alice.client, other) == 1
    process(alice.client, other)
    [switched] = chunks(db, uuid)
    assert switched.uuid == before.uuid and switched.embedder == "fake-v2"
    assert decode_vector(switched.embedding or b"").shape == (8,)
    assert reembed(alice.client, other) == 0  # all done: nothing queued at the next start


def test_sources_with_processing_waiting_are_left_to_it(alice: Api, bot: str, db: Db) -> None:
    qa(alice, bot)  # queued for process_source, which embeds it anyway
    assert reembed(alice.client, runtime_of(alice.client).embedder) == 0
    process(alice.client, None)

    async def reembed_jobs(session: AsyncSession) -> int:
        return len(list(await session.scalars(select(Job).where(Job.kind == JobKind.REEMBED_SOURCE))))

    assert reembed(alice.client, runtime_of(alice.client).embedder) == 1
    assert db.run(reembed_jobs) == 1


def test_a_rescrape_of_unchanged_content_re_embeds_only_for_a_new_embedder(
    alice: Api, bot: str, db: Db, site: WebSite
) -> None:
    site.pages["/same"] = Page(ARTICLE)
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/same")}))
    process(alice.client)
    first = [chunk.uuid for chunk in chunks(db, created["uuid"])]
    version = knowledge_version(db, bot)

    other = FakeEmbedder("fake-v3")
    alice.ok(alice.post("/data-sources/url/re-scrape", {"uuids": [created["uuid"]]}))
    process(alice.client, other)
    after = chunks(db, created["uuid"])
    assert [chunk.uuid for chunk in after] == first  # same content: same chunks, new vectors
    assert {chunk.embedder for chunk in after} == {"fake-v3"}
    assert knowledge_version(db, bot) == version + 1
    calls = other.calls

    alice.ok(alice.post("/data-sources/url/re-scrape", {"uuids": [created["uuid"]]}))
    process(alice.client, other)
    assert other.calls == calls  # nothing stale: nothing embedded
    assert knowledge_version(db, bot) == version + 1
    assert source(alice, created["uuid"])["status"] == "success"


def test_a_rejected_key_ends_the_source_as_error_embedding(alice: Api, bot: str, db: Db) -> None:
    server = EmbeddingServer(status=401)
    try:
        endpoint = OpenAIEmbedder(server.base_url, "text-embed", "sk-wrong")
        uuid = qa(alice, bot)
        process(alice.client, endpoint)
        assert source(alice, uuid)["status"] == "error:embedding"
        assert chunks(db, uuid) == []
        assert len(server.received) == 1  # permanent: not retried
        assert server.received[0].headers["authorization"] == "Bearer sk-wrong"
    finally:
        server.close()


def test_a_passing_embedding_failure_is_retried(alice: Api, bot: str, db: Db) -> None:
    flaky = FakeEmbedder("fake-flaky", fail=2)
    uuid = qa(alice, bot)
    process(alice.client, flaky)
    assert source(alice, uuid)["status"] == "success"
    assert flaky.calls == 3
    assert [chunk.embedder for chunk in chunks(db, uuid)] == ["fake-flaky"]

    down = FakeEmbedder("fake-down", fail=100)
    other = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "q?", "answer": "a."}))["uuid"]
    process(alice.client, down)
    assert source(alice, other)["status"] == "error:embedding"
    assert down.calls == 5  # the job's max_attempts
