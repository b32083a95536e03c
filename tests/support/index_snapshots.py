"""Chatbots large enough for their search index to be saved (`botyard.retrieval.embedded.snapshot`), and retrievers on a
data directory of their own: each stands for a process that starts."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.config import Settings
from botyard.embedding import encode_vector
from botyard.models import Chunk, DataSource
from botyard.retrieval.embedded.index import ChatbotIndex
from botyard.retrieval.embedded.snapshot import SNAPSHOT_ROWS
from botyard.retrieval.fusion import Method
from botyard.retrieval.retriever import Retriever
from botyard.sources.repository import ChunkRepository
from tests.support.database import Db
from tests.support.embedders import FakeEmbedder
from tests.support.retrievers import embedded, embedded_retriever

EMBEDDER = FakeEmbedder("snapshot-test-v1")
WORDS = (  # noqa: SIM905 - a sentence of words reads better than a list of 31 strings
    "lighthouse keeper ledger harbour ferry timetable lantern beacon tide chart anchor cargo crate barrel rope "
    "captain sailor storm fog whistle signal dock pier gull net mackerel herring oyster compass rudder hull"
).split()


def bulk_texts(count: int = SNAPSHOT_ROWS, seed: int = 7) -> list[str]:
    """`count` distinct passages of the harbour's log: enough for the index to be saved."""
    rng = random.Random(seed)
    return [f"Log entry {n}: the {' '.join(rng.sample(WORDS, 6))} of day {n % 365}." for n in range(count)]


def fill(db: Db, source_uuid: str, texts: Sequence[str]) -> None:
    """The source's chunks replaced by `texts`, embedded by `EMBEDDER` (a new knowledge version, logged)."""

    async def work(session: AsyncSession) -> None:
        source = await session.get(DataSource, source_uuid)
        assert source is not None
        vectors = await EMBEDDER.embed_documents(texts)
        chunks = [
            Chunk(
                data_source_uuid=source.uuid,
                chatbot_uuid=source.chatbot_uuid,
                position=n,
                text=text,
                tokens=9,
                embedding=encode_vector(vectors[n]),
                embedder=EMBEDDER.name,
            )
            for n, text in enumerate(texts)
        ]
        await ChunkRepository(session).replace(source, chunks)

    db.run(work)


def process_retriever(settings: Settings, data_dir: Path, **overrides: Any) -> Retriever:
    """A retriever as a process on `data_dir` makes it (its own cache; snapshots under `data_dir/indexes`)."""
    return embedded_retriever(EMBEDDER, settings.model_copy(update={"data_dir": data_dir, **overrides}))


def index_now(db: Db, retriever: Retriever, bot: str) -> ChatbotIndex | None:
    """The chatbot's index in that process, once any snapshot it saves is written (and shared, `share_through`:
    outside the unit of work, whose turn to write SQLite's publication would wait for)."""

    async def work(session: AsyncSession) -> ChatbotIndex | None:
        index = await embedded(retriever).index(session, bot)
        if embedded(retriever).snapshots is not None:
            await embedded(retriever).snapshots.saved()
        return index

    index = db.run(work)
    if embedded(retriever).shared is not None:
        assert db.client.portal is not None
        db.client.portal.call(embedded(retriever).shared.published)
    return index


def found_texts(db: Db, retriever: Retriever, bot: str, query: str, method: Method = Method.HYBRID) -> list[str]:
    found = db.run(lambda session: retriever.retrieve(session, bot, query, top_k=20, method=method))
    return [hit.text for hit in found.hits]


def snapshot_names(data_dir: Path, bot: str) -> list[str]:
    """What the chatbot's snapshot folder holds (snapshots and any temporary directories)."""
    folder = data_dir / "indexes" / bot
    return sorted(entry.name for entry in folder.iterdir()) if folder.is_dir() else []
