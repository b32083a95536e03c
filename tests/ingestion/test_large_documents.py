"""Large documents through the whole pipeline (issue 17, item 1): a text of over a million characters is ingested,
a text without spaces is cut into bounded chunks, a source over a cap fails at once with the cap in its reason and
is not retried, and a many-sheet workbook is embedded in bounded batches."""

from __future__ import annotations

import io
import random
import string
from collections.abc import Sequence

import openpyxl
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.config import Settings
from botyard.embedding import Vectors
from botyard.ingestion.chunk import ChunkingConfig
from botyard.ingestion.parse import ParseLimits
from botyard.models import Job
from botyard.runtime import Runtime, ingestion_config
from botyard.sources.processing.embed import EMBED_BATCH_CHUNKS
from botyard.sources.processing.pipeline import IngestionConfig, SourceProcessor
from tests.support.api import Api
from tests.support.database import Db
from tests.support.embedders import FakeEmbedder
from tests.support.jobs import process, run_jobs
from tests.support.sources import chunks, source, upload, upload_response

TOPICS = ["shipping", "returns", "warranty", "payment", "invoices", "delivery", "support", "accounts"]
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@pytest.fixture
def bot(alice: Api) -> str:
    uuid: str = alice.chatbot()["uuid"]
    return uuid


def prose(chars: int, end: str) -> str:
    """Paragraphs of varied sentences, `chars` characters or a little more, ending with the sentence `end`."""
    rng = random.Random(11)
    paragraphs: list[str] = []
    size = 0
    while size < chars:
        topic = rng.choice(TOPICS)
        sentences = [f"Our {topic} policy number {rng.randint(1, 10**6)} applies to every order." for _ in range(6)]
        paragraphs.append(" ".join(sentences))
        size += len(paragraphs[-1]) + 2
    return "\n\n".join([*paragraphs, end])


def job_of(db: Db, source_uuid: str) -> Job:
    async def go(session: AsyncSession) -> Job:
        return (await session.scalars(select(Job).where(Job.data_source_uuid == source_uuid))).one()

    return db.run(go)


def processor(client: object, embedder: FakeEmbedder | None = None, **config: object) -> SourceProcessor:
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    return SourceProcessor(runtime.egress, IngestionConfig(**config), embedder)  # type: ignore[arg-type]


def test_a_prose_text_of_over_a_million_characters_reaches_success(alice: Api, bot: str, db: Db) -> None:
    text = prose(1_100_000, "The very last sentence names the heron.")
    assert len(text) > 1_000_000
    created = upload(alice, bot, "handbook.txt", text.encode())
    process(alice.client, embedder=None)
    done = source(alice, created["uuid"])
    # Before: `error:processing failed` after five attempts (the counter refused the whole document).
    assert done["status"] == "success", done
    assert done["tokens"] > 200_000
    stored = chunks(db, created["uuid"])
    assert "names the heron" in stored[-1].text
    assert job_of(db, created["uuid"]).attempts == 1


def test_a_text_without_spaces_is_cut_into_bounded_chunks(alice: Api, bot: str, db: Db) -> None:
    text = "".join(random.Random(5).choices(string.ascii_letters + string.digits, k=1_050_000))
    created = upload(alice, bot, "blob.txt", text.encode())
    run_jobs(alice.client, [processor(alice.client, None, max_chunks=10_000)])  # dense text: ~4,000 chunks
    done = source(alice, created["uuid"])
    assert done["status"] == "success", done
    stored = chunks(db, created["uuid"])
    assert all(chunk.tokens is not None and chunk.tokens <= ChunkingConfig().max_tokens for chunk in stored)
    assert "".join(chunk.text for chunk in stored) == text
    assert job_of(db, created["uuid"]).attempts == 1


def test_a_source_over_the_chunk_cap_fails_at_once_naming_the_cap(alice: Api, bot: str, db: Db) -> None:
    text = "".join(random.Random(6).choices(string.ascii_letters, k=20_000))  # about 40 chunks
    created = upload(alice, bot, "blob.txt", text.encode())
    embedder = FakeEmbedder()
    run_jobs(alice.client, [processor(alice.client, embedder, max_chunks=5)])
    assert source(alice, created["uuid"])["status"] == "error:too large - over 5 chunks"
    job = job_of(db, created["uuid"])
    assert (job.status, job.attempts) == ("failed", 1)  # the same text makes as many chunks on every retry
    assert embedder.calls == 0  # refused before any embedding
    assert chunks(db, created["uuid"]) == []


class BatchRecorder(FakeEmbedder):
    """Records how many texts each call embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.sizes.append(len(texts))
        return await super().embed_documents(texts)


def workbook(sheets: int, rows: int) -> bytes:
    book = openpyxl.Workbook(write_only=True)
    for index in range(sheets):
        sheet = book.create_sheet(f"Region {index}")
        sheet.append(["sku", "product", "stock"])
        for row in range(rows):
            sheet.append([f"SKU-{index}-{row}", f"{TOPICS[row % len(TOPICS)]} kit {row}", row * 3])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_a_many_sheet_workbook_is_embedded_in_bounded_batches(alice: Api, bot: str, db: Db) -> None:
    created = alice.ok(upload_response(alice, bot, "stock.xlsx", workbook(sheets=120, rows=40), XLSX))
    recorder = BatchRecorder()
    run_jobs(alice.client, [processor(alice.client, recorder)])
    assert source(alice, created["uuid"])["status"] == "success"
    stored = chunks(db, created["uuid"])
    assert len(stored) > EMBED_BATCH_CHUNKS * 2
    assert "Region 119" in stored[-1].heading
    # Before: one call with every chunk and every row passage of the workbook (memory grew with the workbook).
    assert len(recorder.sizes) >= len(stored) / EMBED_BATCH_CHUNKS
    assert max(recorder.sizes) <= EMBED_BATCH_CHUNKS * 60


def test_a_many_sheet_workbook_is_cut_at_the_character_cap(alice: Api, bot: str, db: Db) -> None:
    created = alice.ok(upload_response(alice, bot, "stock.xlsx", workbook(sheets=240, rows=20), XLSX))
    capped = processor(alice.client, parse_limits=ParseLimits(max_chars=20_000))
    run_jobs(alice.client, [capped])
    assert source(alice, created["uuid"])["status"] == "success"
    stored = chunks(db, created["uuid"])
    assert sum(len(chunk.text) for chunk in stored) < 25_000  # a prefix: the sheets past the cap are dropped
    assert "Region 239" not in {chunk.heading for chunk in stored}


def test_the_ingestion_caps_are_settings(settings: Settings) -> None:
    config = ingestion_config(settings.model_copy(update={"ingest_max_chars": 1234, "ingest_max_chunks": 56}))
    assert (config.parse_limits.max_chars, config.max_chunks) == (1234, 56)
    assert (Settings().ingest_max_chars, Settings().ingest_max_chunks) == (5_000_000, 2_000)
