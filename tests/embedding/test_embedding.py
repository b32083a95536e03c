"""Embedders: the real bundled MiniLM model (offline), and the OpenAI-compatible client against a loopback server."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import botyard.embedding
from botyard.config import Settings
from botyard.embedding import EmbeddingError, ModelIntegrityError, build_embedder, decode_vector, encode_vector
from botyard.embedding.minilm import (
    BATCH_SIZE,
    DIMENSION,
    MODEL_SHA256,
    MiniLMEmbedder,
    default_model_path,
    default_tokenizer_path,
)
from botyard.embedding.openai_compat import OpenAIEmbedder
from tests.support.embedding_server import EmbeddingServer, raw_vector
from tests.support.loop import with_loop_ticks
from tests.support.servers import refusing_port
from tests.support.waiting import START

TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    fake = EmbeddingServer()
    yield fake
    fake.close()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# The bundled model


def test_minilm_vectors_are_384_dimensional_unit_float32(minilm: MiniLMEmbedder) -> None:
    vectors = asyncio.run(minilm.embed_documents(["Opening hours are nine to five.", "Returns within thirty days."]))
    assert minilm.name == "minilm-l6-v2-int8"
    assert minilm.dimension == DIMENSION == 384
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = asyncio.run(minilm.embed_query("When are you open?"))
    assert query.shape == (384,)
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5
    assert np.array_equal(decode_vector(encode_vector(query)), query)


def test_minilm_puts_similar_sentences_closer_than_unrelated_ones(minilm: MiniLMEmbedder) -> None:
    cat, kitten, tax = asyncio.run(
        minilm.embed_documents(
            ["A cat is sleeping on the sofa.", "A kitten naps on the couch.", "Corporate tax returns are due in April."]
        )
    )
    assert float(cat @ kitten) > 0.5
    assert float(cat @ kitten) > float(cat @ tax) + 0.3
    query = asyncio.run(minilm.embed_query("Where does the cat sleep?"))
    assert float(query @ cat) > float(query @ tax)


def test_minilm_gives_a_text_the_same_vector_alone_or_in_a_padded_batch(minilm: MiniLMEmbedder) -> None:
    # Lengths differ a lot, so the short texts are padded in the batch; sorting by length must not reorder results.
    texts = [
        "Short.",
        "A considerably longer sentence that needs many more word pieces than the others. " * 6,
        "Medium length sentence about the weather.",
        "",
        "Shipping takes three working days within the European Union.",
    ]
    batch = asyncio.run(minilm.embed_documents(texts))
    singles = np.stack([asyncio.run(minilm.embed_query(text)) for text in texts])
    assert np.allclose(batch, singles, atol=1e-5)
    small_batches = MiniLMEmbedder(batch_size=2)
    assert np.allclose(asyncio.run(small_batches.embed_documents(texts)), singles, atol=1e-5)


def test_minilm_truncates_long_text_at_256_tokens(minilm: MiniLMEmbedder) -> None:
    prefix = "The library opens at nine and closes at six. " * 40  # about 440 word pieces
    long_a, long_b, short_a, short_b = asyncio.run(
        minilm.embed_documents(
            [prefix + "Cats are welcome.", prefix + "Tax forms are available.", "Cats are welcome.", "Tax forms."]
        )
    )
    # Past 256 tokens the endings are cut off: both long texts get exactly the same vector; short ones differ.
    assert np.allclose(long_a, long_b, atol=1e-6)
    assert cosine(short_a, short_b) < 0.9
    huge = asyncio.run(minilm.embed_query("word " * 20_000))
    assert huge.shape == (384,) and np.isfinite(huge).all()


def test_minilm_embeds_nothing_and_many(minilm: MiniLMEmbedder) -> None:
    assert asyncio.run(minilm.embed_documents([])).shape == (0, 384)
    texts = [f"Item number {number} costs {number * 3} euros." for number in range(70)]
    vectors = asyncio.run(minilm.embed_documents(texts))
    assert vectors.shape == (70, 384)
    assert np.allclose(vectors[69], asyncio.run(minilm.embed_query(texts[69])), atol=1e-5)


def test_minilm_leaves_the_event_loop_free_while_it_works(minilm: MiniLMEmbedder) -> None:
    texts = ["A paragraph about opening hours, returns, shipping and prices. " * 6] * 8

    _, ticks = asyncio.run(with_loop_ticks(minilm.embed_documents(texts), 0.005))
    assert ticks >= 5


RESIDENT_GROWTH = """
import asyncio
from botyard.embedding.minilm import MiniLMEmbedder

def resident() -> int:
    status = open("/proc/self/status").read()
    return int(status.split("VmRSS:")[1].split()[0]) // 1024

async def main() -> None:
    model = MiniLMEmbedder()
    await model.embed_query("warm up")
    before = resident()
    await model.embed_documents(["The shop opens at nine and closes at five on weekdays. " * 20] * 33)
    print(resident() - before)

asyncio.run(main())
"""


def test_minilm_gives_back_the_memory_a_batch_of_documents_took() -> None:
    # Batches of 8 and 1 chunks of 256 tokens: onnxruntime's arena grows for them and, unless handed back, keeps
    # it. What stays is the allocator's ordinary slack (50-100 MB here).
    # A process of its own: what other tests loaded must not count.
    command = [sys.executable, "-c", RESIDENT_GROWTH]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=2 * START)
    assert int(done.stdout.strip()) < 300


def test_minilm_runs_documents_in_small_batches_each_handing_its_memory_back(minilm: MiniLMEmbedder) -> None:
    # Issue 39 item 8: onnxruntime's memory grows with the texts of a run (32 chunks of 256 tokens: 400 MB), and
    # an arena kept over a call's runs grew with every shape it met. A run of at most `BATCH_SIZE` texts, released
    # after each, bounds a large upload's peak whatever its size; a query keeps its arena.
    session = minilm._session
    runs: list[tuple[int, bool]] = []

    def run(outputs: list[str], feeds: dict[str, np.ndarray], options: object = None) -> list[np.ndarray]:
        runs.append((len(feeds["input_ids"]), options is not None))
        return session.run(outputs, feeds, options)

    minilm._session = SimpleNamespace(run=run)  # type: ignore[assignment]
    try:
        asyncio.run(
            minilm.embed_documents([f"Chunk {number} of a long manual. " * (number % 9 + 1) for number in range(70)])
        )
        asyncio.run(minilm.embed_query("When does the shop open?"))
    finally:
        minilm._session = session
    sizes = [size for size, _ in runs[:-1]]
    assert max(sizes) == BATCH_SIZE <= 8 and sum(sizes) == 70
    assert all(released for _, released in runs[:-1]) and runs[-1] == (1, False)


def test_minilm_refuses_a_model_file_with_another_sha256(tmp_path: Path) -> None:
    tampered = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), tampered)
    data = bytearray(tampered.read_bytes())
    data[len(data) // 2] ^= 0xFF
    tampered.write_bytes(bytes(data))
    with pytest.raises(ModelIntegrityError, match=f"expected {MODEL_SHA256}"):
        MiniLMEmbedder(model_path=tampered)
    with pytest.raises(ModelIntegrityError, match="cannot read"):
        MiniLMEmbedder(model_path=tmp_path / "missing.onnx")


def test_the_installed_model_is_the_pinned_one() -> None:
    assert hashlib.sha256(default_model_path().read_bytes()).hexdigest() == MODEL_SHA256


def test_the_tokenizer_and_its_notice_ship_inside_the_package(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    path = default_tokenizer_path()
    package = Path(botyard.embedding.__file__).parent
    assert path.parent == package / "data"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == TOKENIZER_SHA256
    notice = (path.parent / "NOTICE.md").read_text()
    assert "Apache-2.0" in notice and "all-MiniLM-L6-v2" in notice
    # A copy given explicitly works the same: the loader reads the file it is given.
    copy = tmp_path / "tokenizer.json"
    shutil.copyfile(path, copy)
    other = MiniLMEmbedder(tokenizer_path=copy)
    text = "Returns are free within thirty days."
    assert np.allclose(asyncio.run(other.embed_query(text)), asyncio.run(minilm.embed_query(text)), atol=1e-6)


# Choosing an embedder


def test_build_embedder_follows_the_settings(server: EmbeddingServer) -> None:
    assert build_embedder(Settings(embedder="none")) is None
    with pytest.raises(ValueError, match="BOTYARD_EMBEDDING_BASE_URL"):
        build_embedder(Settings(embedder="openai", embedding_model="m"))
    settings = Settings(
        embedder="openai", embedding_base_url=server.base_url, embedding_model="nomic", embedding_api_key="sk-1"
    )
    endpoint = build_embedder(settings)
    assert isinstance(endpoint, OpenAIEmbedder)
    assert endpoint.name == "openai:nomic"
    asyncio.run(endpoint.embed_query("hello"))
    assert server.received[0].headers["authorization"] == "Bearer sk-1"
    assert "sk-1" not in repr(settings) and "sk-1" not in str(settings.model_dump())
    asyncio.run(endpoint.aclose())


def test_commands_that_never_embed_do_not_load_onnxruntime() -> None:
    # `botyard key create` imports the CLI; building the runtime is what loads the model, and only serve/worker do.
    modules = "botyard.cli, botyard.embedding, botyard.sources.processing.embed"
    code = f"import sys, {modules}; print('onnxruntime' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=START)
    assert result.stdout.strip() == "False"


def test_the_runtime_builds_the_configured_embedder(tmp_path: Path) -> None:
    from botyard.runtime import Runtime

    runtime = Runtime.build(Settings(data_dir=tmp_path, embedder="none"))
    try:
        assert runtime.embedder is None
        kinds = set(runtime.runner.handlers)
        assert {"process_source", "reembed_source"} <= kinds
    finally:
        asyncio.run(runtime.close())


# The OpenAI-compatible endpoint


def endpoint(server: EmbeddingServer, **options: object) -> OpenAIEmbedder:
    return OpenAIEmbedder(server.base_url, "text-embed", "sk-secret", **options)  # type: ignore[arg-type]


def test_openai_embedder_posts_model_and_inputs_with_the_bearer_key(server: EmbeddingServer) -> None:
    embedder = endpoint(server)
    asyncio.run(embedder.embed_documents(["first text", "second"]))
    [request] = server.received
    assert request.path == "/v1/embeddings"
    assert request.body == {"model": "text-embed", "input": ["first text", "second"]}
    assert request.headers["authorization"] == "Bearer sk-secret"
    assert request.headers["content-type"] == "application/json"


def test_openai_embedder_normalises_and_keeps_the_order_of_the_inputs(server: EmbeddingServer) -> None:
    server.reverse = True  # rows come back in another order; `index` says where each belongs
    embedder = endpoint(server, batch_size=4)
    texts = [f"text number {number}" * (number % 3 + 1) for number in range(10)]
    vectors = asyncio.run(embedder.embed_documents(texts))
    assert vectors.shape == (10, 6) and vectors.dtype == np.float32
    assert embedder.dimension == 6  # learnt from the answers
    assert [len(request.body["input"]) for request in server.received] == [4, 4, 2]
    for text, vector in zip(texts, vectors, strict=True):
        raw = np.array(raw_vector(text, 6), dtype=np.float32)
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
        assert np.allclose(vector, raw / np.linalg.norm(raw), atol=1e-6)
    query = asyncio.run(embedder.embed_query(texts[3]))
    assert np.allclose(query, vectors[3], atol=1e-6)


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(401, False), (400, False), (404, False), (408, True), (409, True), (429, True), (500, True), (503, True)],
)
def test_openai_embedder_says_which_http_errors_are_worth_retrying(
    server: EmbeddingServer, status: int, retryable: bool
) -> None:
    server.status = status
    server.error_body = b'{"error": {"message": "Incorrect API key provided: sk-secret"}}'
    with pytest.raises(EmbeddingError) as caught:
        asyncio.run(endpoint(server).embed_documents(["a"]))
    assert caught.value.retryable is retryable
    assert str(status) in str(caught.value)
    assert "sk-secret" not in str(caught.value)  # an echoed key is redacted
    assert "[redacted]" in str(caught.value)


def test_openai_embedder_retries_network_failures(server: EmbeddingServer) -> None:
    with refusing_port() as closed, pytest.raises(EmbeddingError, match="unreachable") as caught:
        asyncio.run(OpenAIEmbedder(f"http://127.0.0.1:{closed}/v1", "m", timeout=2).embed_query("a"))
    assert caught.value.retryable
    server.delay = 0.5
    with pytest.raises(EmbeddingError, match="timed out") as caught:
        asyncio.run(endpoint(server, timeout=0.1).embed_query("a"))
    assert caught.value.retryable


@pytest.mark.parametrize("problem", ["drop_one", "not_json", "dimension"])
def test_openai_embedder_refuses_malformed_answers(server: EmbeddingServer, problem: str) -> None:
    options: dict[str, object] = {}
    if problem == "drop_one":
        server.drop_one = True
    elif problem == "not_json":
        server.raw_body = b"<html>Gateway</html>"
    else:
        options["dimension"] = 1536
    with pytest.raises(EmbeddingError) as caught:
        asyncio.run(endpoint(server, **options).embed_documents(["a", "b"]))
    assert not caught.value.retryable
