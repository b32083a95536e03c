"""Chat benchmark: time to first byte and to the full answer of `POST /api/v1/session/{uuid}/message/stream`, over
HTTP, with 10k and 100k chunks in one chatbot.

Phases (a fresh database per chunk count, shared by its phases; every server is a child process on loopback):

- `offline`: `botyard serve` with the offline answerer (the default: no LLM) and the bundled embedders embedding
  each query. One client asks `--queries` questions one after the other (plain-text answers, a new chat session every
  `--per-session` questions). The first answer also builds the chatbot's search index: it is reported on its own
  (the index build time is about that answer's time less a usual one), and 4 more warm-up answers are not counted.
  Figures: time to first byte (the first byte of the answer's body; the message is stored and retrieval done by
  then) p50/p95/p99, and time to the end of the body p50/p95/p99. Goal: p95 first byte under 50 ms at 10k chunks
  and under 100 ms at 100k.
- `changing`: the same one client while a writer, like a crawl or a re-sync, adds a Q&A source every
  `--change-interval` seconds (default 1) and deletes the one added two changes before, through the API. Figures as
  `offline`, measured while the knowledge moves. Goal (issue 18): p95 first byte under 150 ms at 100k chunks. After
  each addition the writer polls the retrieve endpoint (hit testing) with the Q&A's own made-up word until the Q&A is
  among the hits: how long after the API's answer a change is searchable (ingestion's job included), p50 and max.
  Goal: under 1 s.
- `warmed`: the first answers of a server started on the knowledge just written (a bulk load), asked once the
  process that runs jobs has saved the chatbot's index ahead of them (`retrieval/embedded/warmer.py`; `botyard serve`
  runs the jobs in process). Figures: how long after the start the snapshot was on disk, the first answer (first byte,
  full answer) and whether the server loaded or built the index. Run it first on a fresh data directory (the other
  phases leave snapshots). Goal (issue 39): the first answer under 5 s at 100k chunks.
- `shared` (PostgreSQL only, not in the default run): a process on another machine meets a chatbot's first question.
  A server started on the knowledge just written builds, saves and shares its index through the database
  (`retrieval/embedded/shared.py`; both servers get one `BOTYARD_SECRET_KEY`); once it has, it stops, and a server on a
  data directory of its own (no snapshot on its disk) answers `RESTART_ANSWERS` questions. Figures: the first answer and
  how its server got the index (fetched and loaded, or built). Goal (issue 39): the first answer under 5 s at 100k.
- `restart`: the first answers of a server started on a data directory where another one just answered (issue 18:
  cold starts). A first server answers one question, which builds the chatbot's index (or loads a snapshot an
  earlier phase saved) and saves it under `data_dir/indexes/` (`BOTYARD_INDEX_SNAPSHOTS`); once the snapshot is on
  disk it stops, and a new server answers `RESTART_ANSWERS` questions. Figures: the first answer after the restart
  (first byte, full answer), whether that server loaded or built the index (its log), the snapshot's size and save
  time; then a third server started without snapshots answers the same first question, building the index as every
  restart did before snapshots (the figure they are measured against). Goal: the first answer under 3 s at 100k
  chunks.
- `throughput`: `botyard serve --workers 2` (a listening socket per worker, see botyard/serving.py) on the same
  database; 8 clients, one connection each, share `--throughput-answers` questions and ask as fast as the answers
  come, a session's questions in turn from one client (its history then never depends on timing). Each worker
  builds its own index, so three rounds of 8 concurrent warm-up questions on new connections come first. Then
  `throughput-bare`: the same clients and questions against the bare app of bench/_bare_stream.py (FastAPI
  on uvicorn, 2 workers with a socket each, answering a fixed text), the anchor of the ratios printed after it
  (service / bare: first byte, full answer, answers/s, server CPU). Goal (issue 18): at least 60 answers/s.
- `llm`: `botyard serve` pointed at tests/support/fake_llm.py (in a process of its own), which streams 50 tokens 20 ms
  apart for every completion; `--llm-streams` streams (a session and a connection each) arrive evenly over
  `--llm-ramp` seconds (default 1,000 over 10 s; 0: all at once). Then `llm-bare`: the identical load against the
  bare app of bench/_bare_stream.py pointed at the same fake, which relays the model's tokens as plain text and does
  nothing else (no key, session, retrieval or storage): the anchor of the ratios printed after it. The load comes
  from `--llm-clients` processes (bench/_llm_client.py, default 2), so that one Python process reading a thousand
  streams is not what is measured; each reports its CPU seconds and how late its event loop ran (a client that
  keeps up is late by a few ms), and the fake's CPU seconds are printed too. A failure is a transport error, a
  status other than 200, the service's failure message, or an answer that does not end with the fake's last token.
  `--llm-workers` runs both servers with that many workers (default 1). Goal (issue 18): 1,000 streams arriving
  over 10 s, no failure, p99 first byte under 1 s.

Search engines (`--search embedded|postgres|both`, default embedded; postgres needs `--backend postgres` and a
`--postgres-url` of a server with pgvector). On the postgres search every server runs with `BOTYARD_SEARCH=postgres`;
`botyard search migrate` runs on the empty database (its fixed cost: start-up, the schema, the tables), and again
once the knowledge is written: the time that takes is the migrate's cost at that chunk count. `warmed` and `shared`
are skipped there (no index in the process: nothing to save or share), and `restart` measures a fresh process's
first `RESTART_ANSWERS` answers (goal: the first under 1 s at 100k chunks). Goals printed after the runs: the
server's peak memory at the largest chunk count within 50 MB of the smallest's (memory flat in chunks), and the
throughput phase's answers/s at least 80% of the embedded search's. `--neighbours N --neighbour-chunks M` first
writes N other chatbots of M chunks each into the same database (and migrates them, timed apart): the measured
chatbot then shares the search tables with them.

The throughput and LLM phases run on the smallest chunk count given (10k by default). Every phase also prints the
CPU seconds the server (with its worker processes) and this client used, the load average when it started (the
machine may be shared) and the server's peak resident memory; the exception lines the server logged are counted.
The chatbot's rate limit is set to 100 messages a second per session, so it never refuses.

What is synthetic. Loading 10k-100k chunks through the API would mean embedding them at about 20 chunks/s, so the
chatbot and its sessions are made through the API but its knowledge is written straight into the database with
the service's own tables and engine: `data_source` rows (uploads in state `success`) and `chunk` rows (with the
index terms ingestion keeps, `sources.terms`), then the chatbot's knowledge version is bumped
(`ChunkRepository.bump_version`, as ingestion does).
- Text: documents of 4-16 chunks, each with a title; chunks of 150-230 words with a heading, in sentences of 8-20
  words. 70% of the words are drawn with Zipf weights from the ~21,700 whole English words of MiniLM's WordPiece
  vocabulary (which is ordered by frequency: "the", "of", "and" come most often), 30% from the document's topic:
  the 8 words of one of `--themes` themes (60% of the topic words) and 12 words of its own. It reads as word
  salad, but its term statistics (a few very common words, a long tail, topical words repeated within a document
  and shared with the documents of the same theme) are what BM25's postings and scores see. `chunk.tokens` is an
  estimate (1.3 per word).
- Vectors: the service's own embedder (MiniLM and USE-m3) embeds one short text of each theme's 8 words, once. A
  document's vector is its theme's plus Gaussian noise, a chunk's is its document's plus noise, each part
  renormalised (a cosine of about 0.94 to the theme); `chunk.embedder` is the embedder's name, so the service's
  dense index uses them, and they lie where the models put questions made of those words. Each passage of a chunk
  gets the chunk's vector plus noise, stored as ingestion stores passage vectors (the offline answerer reads them
  for the chunks it quotes).
- Questions: 80% (`--off-topic`) are made of 3-4 theme words of a random chunk in templates such as "Is there
  anything about A, B or C?"; the rest are the chit-chat and off-domain questions of bench/retrieval.py. The
  report shows how many on-topic questions were answered (the rest got the no-knowledge reply: the relevance decision
  turned them down) and how many off-topic ones were declined. The LLM phase asks only four-word questions; with a
  model every question reaches it, whatever the gate says.

Run from the repository root, in its virtualenv:

    python bench/chat.py                                   # 10k and 100k chunks, every phase, SQLite
    python bench/chat.py --chunks 1000 --queries 100 --throughput-answers 200 --llm-streams 100   # a quick look
    python bench/chat.py --chunks 100000 --phase offline
    python bench/chat.py --chunks 100000 --phase warmed          # not in the default run: it saves a snapshot
    python bench/chat.py --chunks 100000 --phase shared --backend postgres
    python bench/chat.py --chunks 10000 100000 --phase restart
    python bench/chat.py --backend postgres --postgres-url postgresql://postgres@127.0.0.1:5432/postgres
    python bench/chat.py --backend postgres --postgres-url <a server with pgvector> --search both
    python bench/chat.py --backend postgres --postgres-url <...> --search postgres --neighbours 20 --chunks 10000
    python bench/chat.py --chunks 10000 --phase llm --llm-streams 1000 --llm-ramp 10 --llm-clients 2
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import math
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import httpx
import numpy as np
import numpy.typing as npt
from _bare_stream import BareServer
from _chat_http import Answer, Figures, Question, ask, auth, comparison, create_sessions, measured
from _harness import (
    BOTYARD,
    Database,
    Server,
    SqliteDatabase,
    percentile,
    postgres_database,
)
from _llm_phase import llm_phases
from retrieval import OFF_DOMAIN
from sqlalchemy import Table
from tokenizers import Tokenizer

from botyard.config import Settings
from botyard.db.base import new_uuid
from botyard.db.session import Database as ServiceDatabase
from botyard.embedding import encode_matrix, encode_vector, unit_parts
from botyard.embedding.minilm import MiniLMEmbedder, default_tokenizer_path
from botyard.embedding.pair import USE_SCALE, PairEmbedder
from botyard.embedding.use import UseEmbedder
from botyard.models import Chunk, DataSource
from botyard.passages import passages
from botyard.retrieval.embedded.snapshot import SNAPSHOT_ROWS
from botyard.retrieval.stored_terms import analysed
from botyard.sources.repository import ChunkRepository

ROOT = Path(__file__).resolve().parents[1]
EMBEDDER = PairEmbedder(MiniLMEmbedder(), UseEmbedder(), USE_SCALE)
"""The service's default embedder: its vectors are what the service searches (MiniLM's and USE-m3's parts)."""
GOAL_TTFB_P95_MS = {10_000: 50.0, 100_000: 100.0}
GOAL_ANSWERS_PER_SECOND = 60.0
"""Issue 18: with 2 workers and 8 clients at 10k chunks, on SQLite and PostgreSQL (was 50)."""
GOAL_LLM_TTFB_P99_MS = 1000.0
GOAL_LLM_RAMP = 10.0
"""Issue 18: the 1,000 streams arrive over 10 s."""
GOAL_CHANGING_TTFB_P95_MS = 150.0
"""Issue 18: first byte p95 while the knowledge changes every second, at 100k chunks."""
THROUGHPUT_WORKERS = 2
THROUGHPUT_CLIENTS = 8
WARMUP_ANSWERS = 5
RESTART_ANSWERS = 20
GOAL_RESTART_FIRST_ANSWER_MS = 3000.0
"""Issue 18: the first answer after a restart at 100k chunks."""
GOAL_FRESH_FIRST_ANSWER_MS = 1000.0
"""Postgres search: a fresh process's first answer at 100k chunks (it has no index to build or load)."""
GOAL_SEARCHABLE_MS = 1000.0
"""Changing phase: a Q&A added through the API is found by the retrieve endpoint within this (p50 and max)."""
SEARCHABLE_TIMEOUT = 60.0
SEARCHABLE_POLL = 0.05
GOAL_RSS_GROWTH_MB = 50.0
"""Postgres search: the server's peak memory at the largest chunk count within this of the smallest's."""
GOAL_THROUGHPUT_SHARE = 0.8
"""Postgres search: the throughput phase's answers/s at least this share of the embedded search's."""
NOT_ON_POSTGRES = {
    "warmed": "the postgres search keeps no index in the process: there is no snapshot to save ahead of a question",
    "shared": "the postgres search keeps no index in the process: there is none to share between machines",
}
SNAPSHOT_NAME = re.compile(r"\d+-[0-9a-f]{16}")
RATE_LIMIT = [100, 1]
"""The most messages per session the chatbot settings allow, in the shortest window: never in the way here."""

Vector = npt.NDArray[np.float32]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- Synthetic knowledge --------------------------------------------------------------------------------------------

ZIPF_EXPONENT = 1.0
TOPIC_SHARE = 0.3
THEME_WORDS = 8
DOC_OWN_WORDS = 12
THEME_SHARE = 0.6
"""Of a chunk's topic words, this share are its theme's, the rest its document's own."""
CONTENT_RANKS = (300, 15_000)
"""Topic words come from this band of the frequency-ordered vocabulary: past the function words, before the rare."""
DOC_NOISE = 0.015
"""Standard deviation per dimension of the noise a document's vector adds to its theme's (a norm of about 0.29)."""
CHUNK_NOISE = 0.01
"""The same for a chunk's vector around its document's (a norm of about 0.2)."""
KINDS = ("guide", "handbook", "policy", "manual", "FAQ", "reference", "notes", "overview", "checklist", "primer")
TEMPLATES = (
    "What does the documentation say about {a}, {b} and {c}?",
    "How do I {a} the {b} {c}?",
    "Can you explain {a} {b} for {c}?",
    "Where can I find the {a} {b} {c} details?",
    "Is there anything about {a}, {b} or {c}?",
    "{A} {b} {c}: what are the rules?",
    "Tell me about {a} {b} {c} {d}",
    "Why is {a} {b} needed with {c} {d}?",
)
FOCUSED = TEMPLATES[-2:]
"""Questions with four topic words: nearly all clear the relevance decision (the LLM phase asks these)."""


class Vocabulary:
    """The whole English words of MiniLM's WordPiece vocabulary, most frequent first, with Zipf weights."""

    def __init__(self) -> None:
        vocab = Tokenizer.from_file(str(default_tokenizer_path())).get_vocab()
        pairs = sorted((rank, token) for token, rank in vocab.items() if token.isascii() and token.isalpha())
        self.words = [token for _, token in pairs if len(token) >= 2]
        weights = 1.0 / np.arange(1, len(self.words) + 1, dtype=np.float64) ** ZIPF_EXPONENT
        self.cdf = np.cumsum(weights / weights.sum())
        low, high = CONTENT_RANKS
        self.content = [word for word in self.words[low:high] if len(word) >= 4]

    def zipf(self, rng: np.random.Generator, count: int) -> list[str]:
        picked = np.minimum(np.searchsorted(self.cdf, rng.random(count)), len(self.words) - 1)
        return [self.words[index] for index in picked.tolist()]


@dataclass(frozen=True)
class Themes:
    words: list[list[str]]
    vectors: Vector
    """One MiniLM vector per theme (rows), of a text made of its words."""


def make_themes(vocabulary: Vocabulary, count: int, seed: int) -> Themes:
    rng = np.random.default_rng(seed)
    words = [
        [vocabulary.content[i] for i in rng.choice(len(vocabulary.content), THEME_WORDS, replace=False)]
        for _ in range(count)
    ]
    texts = []
    for theme in words:
        sentences = [" ".join(theme[start : start + 4]) for start in range(0, THEME_WORDS, 4)]
        texts.append(". ".join(sentence.capitalize() for sentence in sentences) + ".")

    async def embed() -> Vector:
        return np.asarray(await EMBEDDER.embed_documents(texts), dtype=np.float32)

    started = time.perf_counter()
    vectors = asyncio.run(embed())
    log(f"embedded {count} theme texts with {EMBEDDER.name} in {time.perf_counter() - started:.1f} s")
    return Themes(words, vectors)


def _normalised(vectors: Vector) -> Vector:
    """Each row with each of its parts (one per model, `Embedder.parts`) of unit length, as the embedder makes them."""
    rows = np.atleast_2d(vectors)
    return np.asarray([unit_parts(row, EMBEDDER.parts) for row in rows], dtype=np.float32).reshape(vectors.shape)


@dataclass
class Batch:
    sources: list[dict[str, Any]] = field(default_factory=list)
    chunks: list[dict[str, Any]] = field(default_factory=list)


class Knowledge:
    """Generates documents and their chunks (rows for `data_source` and `chunk`), and keeps the topic words of a
    sample of chunks to ask about."""

    def __init__(self, vocabulary: Vocabulary, themes: Themes, chatbot: str, seed: int) -> None:
        self.vocabulary, self.themes, self.chatbot = vocabulary, themes, chatbot
        self.rng = np.random.default_rng(seed)
        self.passage_rng = np.random.default_rng(seed + 1)  # its own stream: the texts and questions stay the same
        self.asked: list[list[str]] = []
        self.documents = 0

    def batch(self, chunks: int) -> Batch:
        """Whole documents until at least `chunks` chunks (the last document is cut at `chunks`)."""
        batch = Batch()
        while len(batch.chunks) < chunks:
            self._document(batch, min(int(self.rng.integers(4, 17)), chunks - len(batch.chunks)))
        return batch

    def _passage_vectors(self, text: str, chunk_vector: npt.NDArray[np.float32]) -> bytes:
        """One vector per passage of the chunk, as ingestion stores them: the chunk's plus noise, renormalised."""
        count = len(passages(text))
        noise = self.passage_rng.normal(0, CHUNK_NOISE, (count, chunk_vector.shape[0]))
        return encode_matrix(_normalised(np.asarray(chunk_vector + noise, dtype=np.float32)))

    def _document(self, batch: Batch, chunks: int) -> None:
        rng, vocabulary = self.rng, self.vocabulary
        theme = int(rng.integers(len(self.themes.words)))
        own = [vocabulary.content[i] for i in rng.choice(len(vocabulary.content), DOC_OWN_WORDS).tolist()]
        topic = self.themes.words[theme] + own
        self.documents += 1
        title = f"{topic[0].capitalize()} {topic[1]} {KINDS[int(rng.integers(len(KINDS)))]} {self.documents}"
        source = new_uuid()
        doc_vector = self.themes.vectors[theme] + rng.normal(0, DOC_NOISE, self.themes.vectors.shape[1])
        noise = rng.normal(0, CHUNK_NOISE, (chunks, self.themes.vectors.shape[1]))
        vectors = _normalised(np.asarray(_normalised(doc_vector.astype(np.float32)) + noise, dtype=np.float32))
        size = tokens = 0
        for position in range(chunks):
            text, used = self._chunk_text(self.themes.words[theme], own)
            heading = f"{title} > {topic[int(rng.integers(len(topic)))].capitalize()}"
            estimate = round(len(text.split()) * 1.3)
            terms_tag, terms = analysed(heading, text)  # as ingestion keeps them (`sources.terms`)
            batch.chunks.append(
                {
                    "uuid": new_uuid(),
                    "data_source_uuid": source,
                    "chatbot_uuid": self.chatbot,
                    "position": position,
                    "heading": heading,
                    "text": text,
                    "tokens": estimate,
                    "embedding": encode_vector(vectors[position]),
                    "passage_vectors": self._passage_vectors(text, vectors[position]),
                    "embedder": EMBEDDER.name,
                    "terms": terms,
                    "terms_tag": terms_tag,
                }
            )
            size, tokens = size + len(text), tokens + estimate
            if len(self.asked) < 5000 and rng.random() < 0.1 and len(used) >= 4:
                self.asked.append(used)
        batch.sources.append(
            {
                "uuid": source,
                "chatbot_uuid": self.chatbot,
                "title": title,
                "type": "upload",
                "status": "success",
                "file_name": f"{title.lower().replace(' ', '-')}.md",
                "file_size": size,
                "tokens": tokens,
                "meta": {},
            }
        )

    def _chunk_text(self, theme: list[str], own: list[str]) -> tuple[str, list[str]]:
        """A chunk's text, and the distinct theme words in it (in order of appearance)."""
        rng = self.rng
        count = int(rng.integers(150, 231))
        words = self.vocabulary.zipf(rng, count)
        draws = rng.random(count)
        picks = rng.integers(len(theme) * len(own), size=count).tolist()
        used: list[str] = []
        for index, draw in enumerate(draws.tolist()):
            if draw < TOPIC_SHARE * THEME_SHARE:
                words[index] = theme[picks[index] % len(theme)]
                if words[index] not in used:
                    used.append(words[index])
            elif draw < TOPIC_SHARE:
                words[index] = own[picks[index] % len(own)]
        sentences = []
        start = 0
        while start < count:
            end = start + int(rng.integers(8, 21))
            sentences.append(" ".join(words[start:end]).capitalize() + ".")
            start = end
        return " ".join(sentences), used


def questions(
    knowledge: Knowledge, count: int, off_topic: float, seed: int, templates: Sequence[str] = TEMPLATES
) -> list[Question]:
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        if rng.random() < off_topic or not knowledge.asked:
            made.append(Question(rng.choice(OFF_DOMAIN), on_topic=False))
            continue
        a, b, c, d = rng.sample(rng.choice(knowledge.asked), 4)
        made.append(Question(rng.choice(templates).format(a=a, b=b, c=c, d=d, A=a.capitalize()), on_topic=True))
    return made


def load_knowledge(settings: Settings, knowledge: Knowledge, chunks: int, batch_size: int = 2000) -> float:
    """Write `chunks` chunks into the chatbot and bump its knowledge version; the seconds it took."""

    async def write() -> None:
        database = ServiceDatabase.from_settings(settings)
        sources, rows = DataSource.__table__, Chunk.__table__
        assert isinstance(sources, Table) and isinstance(rows, Table)
        try:
            done, written = 0, []
            while done < chunks:
                batch = knowledge.batch(min(batch_size, chunks - done))
                async with database.transaction() as session:
                    connection = await session.connection()
                    await connection.execute(sources.insert(), batch.sources)
                    await connection.execute(rows.insert(), batch.chunks)
                done += len(batch.chunks)
                written += [source["uuid"] for source in batch.sources]
                if done % 20_000 < batch_size:
                    log(f"  {done} chunks written")
            async with database.transaction() as session:
                await ChunkRepository(session).bump_version(knowledge.chatbot, written)
        finally:
            await database.dispose()

    started = time.perf_counter()
    asyncio.run(write())
    return time.perf_counter() - started


async def one_client(server: Server, key: str, bot: str, asked: list[Question], per_session: int) -> Figures:
    async with httpx.AsyncClient(base_url=server.base, headers=auth(key), timeout=300) as client:
        sessions = await create_sessions(client, bot, math.ceil((len(asked) + WARMUP_ANSWERS) / per_session))
        warmup = [await ask(client, sessions[0], question) for question in asked[:WARMUP_ANSWERS]]
        figures = Figures([], warmup_ms=[answer.total_ms for answer in warmup], setup="botyard serve, 1 client")
        figures.notes += [
            f"warm-up failed: {answer.status} {answer.error or answer.text[:200]}" for answer in warmup if answer.failed
        ]
        with measured(figures, server):
            started = time.perf_counter()
            for number, question in enumerate(asked, start=WARMUP_ANSWERS):
                figures.answers.append(await ask(client, sessions[number // per_session], question))
            figures.seconds = time.perf_counter() - started
    return figures


async def first_answers(server: Server, key: str, bot: str, asked: list[Question]) -> Figures:
    """One client's answers to `asked` on a server that has not answered yet: the first one pays for the index."""
    async with httpx.AsyncClient(base_url=server.base, headers=auth(key), timeout=600) as client:
        session = (await create_sessions(client, bot, 1))[0]
        figures = Figures([], setup="botyard serve restarted on the data directory, 1 client", warmup_note="-")
        with measured(figures, server):
            started = time.perf_counter()
            for question in asked:
                figures.answers.append(await ask(client, session, question))
            figures.seconds = time.perf_counter() - started
    return figures


def wait_for_snapshot(data_dir: Path, bot: str, timeout: float = 600.0) -> Path | None:
    """The chatbot's saved index once it is on disk (None after `timeout` s, or without snapshots)."""
    folder = data_dir / "indexes" / bot
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [entry for entry in folder.iterdir() if SNAPSHOT_NAME.fullmatch(entry.name)] if folder.is_dir() else []
        if found:
            return found[0]
        time.sleep(0.2)
    return None


def index_lines(path: Path) -> list[str]:
    """The server log's lines about the retrieval index (built, loaded, saved), without their timestamps."""
    lines = path.read_text(errors="replace").splitlines()
    return [
        line[line.index("retrieval index") :] if "retrieval index" in line else line
        for line in lines
        if "retrieval index of chatbot" in line or "index snapshot" in line
    ]


def warmed(data_dir: Path, env: dict[str, str], key: str, bot: str, asked: list[Question], run: Run) -> Figures:
    """The `warmed` phase (see the module)."""
    started = time.perf_counter()
    with phase_server(Server(data_dir, env), "warmed", run) as server:
        snapshot = wait_for_snapshot(data_dir, bot)
        while snapshot is not None and any(" ahead of its question" in line for line in index_lines(server.log_path)):
            if any("saved ahead" in line for line in index_lines(server.log_path)):  # saved and let go (`warmer`)
                break
            time.sleep(0.2)
        waited = time.perf_counter() - started
        figures = asyncio.run(first_answers(server, key, bot, asked[:RESTART_ANSWERS]))
    figures.setup = "botyard serve started on the knowledge just written, asked once its index was saved, 1 client"
    first = figures.answers[0] if figures.answers else None
    if first is not None:
        figures.notes.append(f"first answer: first byte {first.ttfb_ms:.0f} ms, full answer {first.total_ms:.0f} ms")
    figures.notes.append(
        f"snapshot on disk, and the warmer done with it, {waited:.1f} s after the server was started"
        if snapshot is not None
        else "no snapshot was saved (a chatbot under 5,000 chunks, or BOTYARD_INDEX_SNAPSHOTS=false)"
    )
    figures.notes += [f"server: {line}" for line in index_lines(server.log_path)]
    return figures


def shared(data_dir: Path, env: dict[str, str], key: str, bot: str, asked: list[Question], run: Run) -> Figures:
    """The `shared` phase (see the module)."""
    env = env | {"BOTYARD_SECRET_KEY": base64.urlsafe_b64encode(os.urandom(32)).decode()}  # alike on both machines
    started = time.perf_counter()
    with phase_server(Server(data_dir, env), "shared-publish", run) as server:
        while not any("shared through the database" in line for line in index_lines(server.log_path)):
            if time.perf_counter() - started > 900:
                raise RuntimeError("the first machine did not share the chatbot's index in 900 s")
            time.sleep(0.2)
        published = time.perf_counter() - started
    other = data_dir / "other-machine"
    other.mkdir()
    with phase_server(Server(other, env), "shared", run) as server:
        figures = asyncio.run(first_answers(server, key, bot, asked[:RESTART_ANSWERS]))
    figures.setup = "botyard serve on a data directory of its own (another machine), first questions, 1 client"
    first = figures.answers[0] if figures.answers else None
    if first is not None:
        figures.notes.append(f"first answer: first byte {first.ttfb_ms:.0f} ms, full answer {first.total_ms:.0f} ms")
    figures.notes.append(f"the first machine built, saved and shared the index {published:.1f} s after its start")
    figures.notes += [f"server: {line}" for line in index_lines(server.log_path)]
    return figures


def restart(data_dir: Path, env: dict[str, str], key: str, bot: str, asked: list[Question], run: Run) -> Figures:
    """The `restart` phase (see the module)."""
    snapshots = env.get("BOTYARD_INDEX_SNAPSHOTS", "true").lower() not in ("false", "0", "no", "off")
    snapshots = snapshots and run.chunks >= SNAPSHOT_ROWS  # a smaller index is built, never saved
    with phase_server(Server(data_dir, env), "restart-warm", run) as server:
        warm = asyncio.run(first_answers(server, key, bot, asked[:1]))
        saving = time.perf_counter()
        snapshot = wait_for_snapshot(data_dir, bot) if snapshots else None
        waited = time.perf_counter() - saving
    warm_lines = index_lines(server.log_path)
    with phase_server(Server(data_dir, env), "restart", run) as server:
        figures = asyncio.run(first_answers(server, key, bot, asked[1 : 1 + RESTART_ANSWERS]))
    figures.warmup_ms = [answer.total_ms for answer in warm.answers]
    figures.warmup_note = "the first server's first answer"
    first = figures.answers[0] if figures.answers else None
    if first is not None:
        figures.notes.append(
            f"first answer after the restart: first byte {first.ttfb_ms:.0f} ms, full answer {first.total_ms:.0f} ms"
        )
    if snapshot is not None:
        size = sum(path.stat().st_size for path in snapshot.rglob("*") if path.is_file()) / 1e6
        figures.notes.append(
            f"snapshot {snapshot.name}: {size:.0f} MB on disk, on disk {waited:.1f} s after the answer"
        )
    figures.notes += [f"first server: {line}" for line in warm_lines]
    figures.notes += [f"restarted server: {line}" for line in index_lines(server.log_path)]
    if snapshots:  # the same restart as before snapshots existed: the index is built
        with phase_server(Server(data_dir, env | {"BOTYARD_INDEX_SNAPSHOTS": "false"}), "restart-build", run) as server:
            built = asyncio.run(first_answers(server, key, bot, asked[1:2]))
        figures.notes += [
            f"restarted without snapshots (builds): first byte {answer.ttfb_ms:.0f} ms, full answer "
            f"{answer.total_ms:.0f} ms"
            for answer in built.answers
        ]
        figures.notes += [f"restarted without snapshots: {line}" for line in index_lines(server.log_path)]
    return figures


def fresh_process(data_dir: Path, env: dict[str, str], key: str, bot: str, asked: list[Question], run: Run) -> Figures:
    """The `restart` phase on the postgres search: a server that has not answered yet answers `RESTART_ANSWERS`
    questions; it holds no index, so its first answer should be like the others."""
    started = time.perf_counter()
    with phase_server(Server(data_dir, env), "restart", run) as server:
        listening = time.perf_counter() - started
        figures = asyncio.run(first_answers(server, key, bot, asked[1 : 1 + RESTART_ANSWERS]))
    figures.setup = "a fresh botyard serve (BOTYARD_SEARCH=postgres), its first questions, 1 client"
    figures.warmup_note = "none: the first answer is the figure"
    first = figures.answers[0] if figures.answers else None
    if first is not None:
        figures.notes.append(
            f"fresh process's first answer: first byte {first.ttfb_ms:.0f} ms, full answer {first.total_ms:.0f} ms "
            f"(the server listened {listening:.1f} s after its start)"
        )
    figures.notes += [f"server: {line}" for line in index_lines(server.log_path)]
    return figures


async def searchable_after(client: httpx.AsyncClient, bot: str, source: str, query: str) -> float | None:
    """Seconds until the retrieve endpoint's hits for `query` include a chunk of `source` (polled every
    `SEARCHABLE_POLL` s); None after `SEARCHABLE_TIMEOUT` s."""
    started = time.perf_counter()
    while time.perf_counter() - started < SEARCHABLE_TIMEOUT:
        found = await client.post(f"/api/v1/chatbot/{bot}/retrieve", json={"query": query, "top_k": 8})
        if found.status_code == 200 and any(hit["data_source_uuid"] == source for hit in found.json()["chunks"]):
            return time.perf_counter() - started
        await asyncio.sleep(SEARCHABLE_POLL)
    return None


async def while_changing(
    server: Server, key: str, bot: str, asked: list[Question], per_session: int, interval: float, run: Run
) -> Figures:
    """One client's questions while a writer, like a crawl or a re-sync, adds a Q&A source every `interval` s and
    deletes the one added two changes before: every change moves the chatbot's knowledge, and the questions that
    follow show what a change costs them. After each addition the writer polls the retrieve endpoint with the Q&A's
    own made-up word until the Q&A is found (`run.searchable_ms`: from the API's answer to the hit, ingestion's job
    included), then waits `interval` s."""
    async with httpx.AsyncClient(base_url=server.base, headers=auth(key), timeout=300) as client:
        sessions = await create_sessions(client, bot, math.ceil((len(asked) + 1) / per_session))
        warmup = await ask(client, sessions[0], asked[0])
        figures = Figures(
            [], warmup_ms=[warmup.total_ms], setup=f"botyard serve, 1 client, a change every {interval:g} s"
        )
        figures.warmup_note = "one answer before the writer starts: it builds the index"
        stop = asyncio.Event()
        changes: list[float] = []

        async def writer() -> None:
            added: list[str] = []
            while not stop.is_set():
                started = time.perf_counter()
                marker = f"zorbly{len(changes)}quex"  # a word no chunk has: only this Q&A holds it
                body = {"question": f"What is the {marker} change?", "answer": f"The {marker} change is new."}
                created = await client.post(f"/api/v1/chatbot/{bot}/data-source/qa", json=body)
                added.append(created.raise_for_status().json()["uuid"])
                found = await searchable_after(client, bot, added[-1], f"{marker} change")
                if found is None:
                    run.unsearchable += 1
                else:
                    run.searchable_ms.append(found * 1000)
                if len(added) > 2:
                    (await client.post(f"/api/v1/data-source/{added.pop(0)}/delete")).raise_for_status()
                changes.append(time.perf_counter() - started)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), interval)

        with measured(figures, server):
            started = time.perf_counter()
            writing = asyncio.create_task(writer())
            for number, question in enumerate(asked[1:], start=1):
                figures.answers.append(await ask(client, sessions[number // per_session], question))
            figures.seconds = time.perf_counter() - started
            stop.set()
            await writing
        figures.notes.append(f"{len(changes)} changes (a source added, and from the third on one deleted)")
    return figures


async def many_clients(
    server: Server, key: str, bot: str | None, asked: list[Question], per_session: int, clients: int, workers: int
) -> Figures:
    """`clients` clients, a connection each, share the sessions (a session's questions in turn, from one client); as
    fast as the answers come. Without a chatbot (`bot` None) the server is the bare app, and the sessions are
    made-up uuids."""
    headers = auth(key)
    limits = httpx.Limits(max_connections=1)
    count = math.ceil(len(asked) / per_session) + clients * 3
    if bot is None:
        sessions = [new_uuid() for _ in range(count)]
    else:
        async with httpx.AsyncClient(base_url=server.base, headers=headers, timeout=300) as client:
            sessions = await create_sessions(client, bot, count)
    warm_sessions, sessions = sessions[: clients * 3], sessions[clients * 3 :]
    what = "botyard serve" if bot else "bare FastAPI, a fixed answer,"
    figures = Figures([], setup=f"{what} --workers {workers}, {clients} clients")
    figures.warmup_note = f"rounds of {clients} concurrent answers on new connections: each worker builds its index"
    for round_number in range(3):  # new connections each round, so that both workers get some and build an index
        round_sessions = warm_sessions[round_number * clients : (round_number + 1) * clients]
        started = time.perf_counter()

        async def warm(session: str, number: int) -> Answer:
            async with httpx.AsyncClient(base_url=server.base, headers=headers, timeout=300, limits=limits) as own:
                return await ask(own, session, asked[number % len(asked)])

        warmup = await asyncio.gather(*(warm(session, n) for n, session in enumerate(round_sessions)))
        figures.warmup_ms.append((time.perf_counter() - started) * 1000)
        figures.notes += [f"warm-up failed: {a.status} {a.error or a.text[:200]}" for a in warmup if a.failed]
    # A session's questions go to one client, one after the other, as its user would ask them: each is asked with
    # the answers before it stored, so the history it is answered with does not depend on timing.
    pending = iter(range(0, len(asked), per_session))

    async def worker() -> None:
        async with httpx.AsyncClient(base_url=server.base, headers=headers, timeout=300, limits=limits) as own:
            for first in pending:
                for question in asked[first : first + per_session]:
                    figures.answers.append(await ask(own, sessions[first // per_session], question))

    with measured(figures, server):
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        figures.seconds = time.perf_counter() - started
    return figures


# --- Servers --------------------------------------------------------------------------------------------------------


def raise_open_files_limit(wanted: int) -> int:
    """Raise this process's soft limit on open files towards `wanted` (the servers it starts inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def search_migrate(data_dir: Path, env: dict[str, str]) -> float:
    """Run `botyard search migrate` (the service's migrations, then the postgres search's tables made and filled);
    the seconds it took."""
    environment = Server(data_dir, env).env  # only its environment: the variables every server gets
    started = time.perf_counter()
    done = subprocess.run(  # noqa: S603
        [*BOTYARD, "search", "migrate"], env=environment, capture_output=True, text=True, timeout=7200, check=False
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"botyard search migrate failed ({done.returncode}): {done.stderr[-2000:]}")
    lines = (done.stdout + done.stderr).strip().splitlines()
    log(f"  botyard search migrate: {seconds:.1f} s ({lines[-1] if lines else 'no output'})")
    return seconds


def has_pgvector(url: str) -> str | None:
    """None when the server of `url` offers the `vector` extension, else why not (to print)."""

    async def available() -> bool:
        connection = await asyncpg.connect(url)
        try:
            return bool(await connection.fetchval("SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'"))
        finally:
            await connection.close()

    try:
        return None if asyncio.run(available()) else f"the PostgreSQL server of {url} has no pgvector (`vector`)"
    except (OSError, asyncpg.PostgresError) as error:
        return f"cannot reach {url}: {error}"


# --- One chunk count ------------------------------------------------------------------------------------------------


@dataclass
class Run:
    backend: str
    chunks: int
    search: str = "embedded"
    load_seconds: float = 0.0
    documents: int = 0
    neighbours: int = 0
    neighbour_chunks: int = 0
    neighbour_seconds: float = 0.0
    """Seconds to write the other chatbots' knowledge (`--neighbours`)."""
    migrate_seconds: float | None = None
    """Seconds `botyard search migrate` took to fill the measured chatbot's rows (postgres search)."""
    empty_migrate_seconds: float | None = None
    """`botyard search migrate` on the empty database (its fixed cost: start-up, the schema, the embedder loaded)."""
    neighbour_migrate_seconds: float | None = None
    """The same for the neighbours' rows, before the measured chatbot's knowledge was written."""
    searchable_ms: list[float] = field(default_factory=list)
    """Changing phase: from a Q&A's creation (the API's answer) to its first hit on the retrieve endpoint."""
    unsearchable: int = 0
    """Changing phase: the Q&As not found within `SEARCHABLE_TIMEOUT`."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Phases not run on this search, and why."""
    phases: dict[str, Figures] = field(default_factory=dict)
    log_errors: dict[str, dict[str, int]] = field(default_factory=dict)


@contextlib.contextmanager
def fresh_database(backend: str, postgres_url: str) -> Iterator[tuple[Database, Path]]:
    with tempfile.TemporaryDirectory(prefix="botyard-bench-chat-") as directory:
        data_dir = Path(directory)
        if backend == "sqlite":
            yield SqliteDatabase(data_dir), data_dir
        else:
            with postgres_database(postgres_url) as database:
                yield database, data_dir


EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Timeout|Exit|Cancelled)\b")
HEX_ID = re.compile(r"[0-9a-f]{32}")


def logged_errors(path: Path) -> dict[str, int]:
    """The exception lines of the tracebacks in a server's log (ids masked), and how often each occurs."""
    counts: dict[str, int] = {}
    for line in path.read_text(errors="replace").splitlines():
        if EXCEPTION_LINE.match(line):
            key = HEX_ID.sub("<id>", line)[:200]
            counts[key] = counts.get(key, 0) + 1
    return counts


@contextlib.contextmanager
def phase_server(server: Server, name: str, run: Run) -> Iterator[Server]:
    """Run `server` for one phase, with a log of its own; the exceptions it logged go into the run's report."""
    server.log_path = server.log_path.with_name(f"{name}.log")
    with server.running():
        yield server
    errors = logged_errors(server.log_path)
    if errors:
        run.log_errors[name] = errors
        log(f"  the {name} server logged {sum(errors.values())} exceptions; its log ends with:\n{server.log_tail(30)}")


def run_size(
    args: argparse.Namespace,
    backend: str,
    search: str,
    chunks: int,
    vocabulary: Vocabulary,
    themes: Themes,
    all_phases: bool,
) -> Run:
    run = Run(backend, chunks, search)
    phases = [
        phase for phase in args.phase if all_phases or phase in ("warmed", "shared", "offline", "restart", "changing")
    ]
    if search == "postgres":
        run.skipped = {phase: NOT_ON_POSTGRES[phase] for phase in phases if phase in NOT_ON_POSTGRES}
        phases = [phase for phase in phases if phase not in NOT_ON_POSTGRES]
    with fresh_database(backend, args.postgres_url) as (database, data_dir):
        env = database.env | dict(item.split("=", 1) for item in args.server_env)
        if search == "postgres":
            env["BOTYARD_SEARCH"] = "postgres"
            # The schema and the empty search tables (a server refuses to start without): the migrate's fixed cost.
            run.empty_migrate_seconds = search_migrate(data_dir, env)
        service_settings = Settings(data_dir=data_dir, database_url=database.env.get("BOTYARD_DATABASE_URL"))
        first = Server(data_dir, env)
        key = first.create_key()
        with (
            phase_server(first, "setup", run) as server,
            httpx.Client(base_url=server.base, headers=auth(key)) as client,
        ):
            body = {"name": f"bench {chunks}", "rate_limit": RATE_LIMIT}
            if args.neighbours:
                run.neighbours, run.neighbour_chunks = args.neighbours, args.neighbour_chunks
                log(
                    f"{backend}, {search} search: {args.neighbours} other chatbots of {args.neighbour_chunks} chunks..."
                )
                started = time.perf_counter()
                for number in range(args.neighbours):
                    other = {"name": f"neighbour {number}", "rate_limit": RATE_LIMIT}
                    uuid = client.post("/api/v1/chatbot/create", json=other).raise_for_status().json()["uuid"]
                    seed = args.seed + 1000 + number
                    load_knowledge(service_settings, Knowledge(vocabulary, themes, uuid, seed), args.neighbour_chunks)
                run.neighbour_seconds = time.perf_counter() - started
                log(f"  {args.neighbours * args.neighbour_chunks} chunks written in {run.neighbour_seconds:.1f} s")
                if search == "postgres":
                    run.neighbour_migrate_seconds = search_migrate(data_dir, env)
            bot = client.post("/api/v1/chatbot/create", json=body).raise_for_status().json()["uuid"]
            knowledge = Knowledge(vocabulary, themes, bot, args.seed)
            log(f"{backend}, {search} search, {chunks} chunks: writing the knowledge...")
            run.load_seconds = load_knowledge(service_settings, knowledge, chunks)
            run.documents = knowledge.documents
            log(f"  {chunks} chunks in {knowledge.documents} documents written in {run.load_seconds:.1f} s")
        if search == "postgres":
            run.migrate_seconds = search_migrate(data_dir, env)
        asked = questions(knowledge, max(args.queries, args.throughput_answers), args.off_topic, args.seed)
        if "warmed" in phases:
            log("  warmed: a server started on the knowledge just written saves its index, then answers...")
            run.phases["warmed"] = warmed(data_dir, env, key, bot, asked, run)
        if "shared" in phases and backend == "postgres":
            log("  shared: a server on another machine's data directory meets its first question...")
            run.phases["shared"] = shared(data_dir, env, key, bot, asked, run)
        if "offline" in phases:
            log("  offline answerer, one client...")
            with phase_server(Server(data_dir, env), "offline", run) as server:
                run.phases["offline"] = asyncio.run(
                    one_client(server, key, bot, asked[: args.queries], args.per_session)
                )
        if "restart" in phases and search == "postgres":
            log("  restart: a fresh process's first answers (the postgres search: no index to build or load)...")
            run.phases["restart"] = fresh_process(data_dir, env, key, bot, asked, run)
        elif "restart" in phases:
            log("  restart: a first server answers and saves the index, then a new one answers...")
            run.phases["restart"] = restart(data_dir, env, key, bot, asked, run)
        if "changing" in phases:
            log(f"  offline answerer, one client, the knowledge changing every {args.change_interval:g} s...")
            with phase_server(Server(data_dir, env), "changing", run) as server:
                run.phases["changing"] = asyncio.run(
                    while_changing(server, key, bot, asked[: args.queries], args.per_session, args.change_interval, run)
                )
        if "throughput" in phases:
            log(f"  offline answerer, {args.workers} workers and {args.clients} clients...")
            throughput = asked[: args.throughput_answers]
            for name, server, chatbot in (
                ("throughput", Server(data_dir, env, args.workers), bot),
                ("throughput-bare", BareServer(data_dir, args.workers), None),
            ):
                with phase_server(server, name, run) as running:
                    run.phases[name] = asyncio.run(
                        many_clients(running, key, chatbot, throughput, args.per_session, args.clients, args.workers)
                    )
        if "llm" in phases:
            log(f"  fake LLM, {args.llm_streams} streams over {args.llm_ramp:g} s, then the bare app the same...")
            on_topic = questions(knowledge, args.llm_streams, 0.0, args.seed + 1, FOCUSED)

            def start(server: Server, name: str) -> contextlib.AbstractContextManager[Server]:
                return phase_server(server, name, run)

            run.phases |= llm_phases(
                start, data_dir, env, key, bot, on_topic, args.llm_ramp, args.llm_clients, args.llm_workers
            )
    if search == "postgres":  # the warm-up notes speak of building the index: there is none in the process here
        for name, figures in run.phases.items():
            if "index" in figures.warmup_note and not name.endswith("-bare"):
                figures.warmup_note = "warm-up answers; the postgres search builds no index in the process"
    return run


# --- Report ---------------------------------------------------------------------------------------------------------


def _ms(values: Sequence[float], fraction: float) -> str:
    return f"{percentile(values, fraction):.1f}" if values else "-"


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole}" if whole else "-"


def _answered(figures: Figures) -> str:
    on = [answer for answer in figures.ok if answer.question.on_topic]
    off = [answer for answer in figures.ok if not answer.question.on_topic]
    return (
        f"on-topic answered {_share(sum(not a.declined for a in on), len(on))}, "
        f"off-topic declined {_share(sum(a.declined for a in off), len(off))}"
    )


def _goal(label: str, met: bool) -> str:
    return f"{label}: {'MET' if met else 'MISSED'}"


def report_run(run: Run) -> list[str]:
    lines = [
        f"== {run.backend}, {run.search} search, {run.chunks} chunks ({run.documents} documents; written in "
        f"{run.load_seconds:.1f} s)"
    ]
    if run.neighbours:
        lines.append(
            f"   sharing the database with {run.neighbours} other chatbots of {run.neighbour_chunks} chunks "
            f"(written in {run.neighbour_seconds:.1f} s"
            + (
                f", botyard search migrate {run.neighbour_migrate_seconds:.1f} s"
                if run.neighbour_migrate_seconds is not None
                else ""
            )
            + ")"
        )
    if run.migrate_seconds is not None:
        lines.append(
            f"   botyard search migrate of the {run.chunks} chunks: {run.migrate_seconds:.1f} s (on the empty "
            f"database: {run.empty_migrate_seconds or 0:.1f} s)"
        )
    lines += [f"-- {name}: skipped, {reason}" for name, reason in run.skipped.items()]
    for name, figures in run.phases.items():
        ttfb, total = figures.ttfb(), figures.total()
        failures = len(figures.answers) - len(figures.ok)
        rate = len(figures.ok) / figures.seconds if figures.seconds else 0.0
        lines += [
            f"-- {name} ({figures.setup}): {len(figures.answers)} answers in {figures.seconds:.1f} s = {rate:.1f}/s, "
            f"{failures} failed" + ("" if name.endswith("-bare") else f"; {_answered(figures)}"),
            f"   first byte ms: p50 {_ms(ttfb, 0.5)}  p95 {_ms(ttfb, 0.95)}  p99 {_ms(ttfb, 0.99)}  "
            f"max {_ms(ttfb, 1.0)};  full answer ms: p50 {_ms(total, 0.5)}  p95 {_ms(total, 0.95)}  "
            f"p99 {_ms(total, 0.99)}",
            f"   warm-up ms: {', '.join(f'{value:.0f}' for value in figures.warmup_ms)}  ({figures.warmup_note})",
            f"   server CPU {figures.server_cpu:.1f} s, client CPU {figures.client_cpu:.1f} s, "
            f"load average {figures.load:.1f} at start, server tree RSS peak {figures.tree_rss_mb:.0f} MB, "
            f"at the end {figures.tree_rss_end_mb:.0f} MB"
            + (f", peak concurrent streams {figures.peak_streams}" if name.startswith("llm") else ""),
        ]
        if name == "offline" and run.chunks in GOAL_TTFB_P95_MS:
            limit = GOAL_TTFB_P95_MS[run.chunks]
            lines.append("   " + _goal(f"p95 first byte < {limit:.0f} ms", percentile(ttfb, 0.95) < limit))
        if name == "restart" and run.search == "postgres" and run.chunks == 100_000 and figures.answers:
            limit = GOAL_FRESH_FIRST_ANSWER_MS
            met = figures.answers[0].total_ms < limit
            lines.append("   " + _goal(f"a fresh process's first answer < {limit:.0f} ms", met))
        elif name == "restart" and run.chunks == 100_000 and figures.answers:
            first = figures.answers[0].total_ms
            lines.append(
                "   "
                + _goal(
                    f"first answer after a restart < {GOAL_RESTART_FIRST_ANSWER_MS:.0f} ms",
                    first < GOAL_RESTART_FIRST_ANSWER_MS,
                )
            )
        if name == "changing":
            found = run.searchable_ms
            lines.append(
                f"   a Q&A searchable after (API answer to retrieve hit) ms: p50 {_ms(found, 0.5)}  "
                f"p95 {_ms(found, 0.95)}  max {_ms(found, 1.0)} ({len(found)} found, {run.unsearchable} not "
                f"within {SEARCHABLE_TIMEOUT:.0f} s)"
            )
            met = bool(found) and not run.unsearchable and percentile(found, 1.0) < GOAL_SEARCHABLE_MS
            lines.append("   " + _goal(f"a change searchable within {GOAL_SEARCHABLE_MS:.0f} ms (max)", met))
        if name == "changing" and run.chunks == 100_000:
            goal = f"p95 first byte < {GOAL_CHANGING_TTFB_P95_MS:.0f} ms while the knowledge changes"
            lines.append("   " + _goal(goal, percentile(ttfb, 0.95) < GOAL_CHANGING_TTFB_P95_MS))
        if name == "throughput":
            label = f">= {GOAL_ANSWERS_PER_SECOND:.0f} answers/s with {THROUGHPUT_WORKERS} workers and "
            label += f"{THROUGHPUT_CLIENTS} clients at 10k chunks"
            lines.append("   " + _goal(label, rate >= GOAL_ANSWERS_PER_SECOND))
        if name == "llm":
            met = failures == 0 and len(figures.answers) >= 1000 and percentile(ttfb, 0.99) < GOAL_LLM_TTFB_P99_MS
            label = f"1,000 streams arriving over {GOAL_LLM_RAMP:g} s (here {figures.ramp:g} s), 0 failures, "
            lines.append("   " + _goal(label + "p99 first byte < 1 s", met and figures.ramp <= GOAL_LLM_RAMP))
        errors: dict[str, int] = {}
        for answer in figures.answers:
            if answer.failed:
                reason = (answer.error or (f"HTTP {answer.status}" if answer.status != 200 else "failure message"))[
                    :160
                ]
                errors[reason] = errors.get(reason, 0) + 1
        lines += [f"   failure x{count}: {reason}" for reason, count in errors.items()]
        lines += [f"   note: {note}" for note in figures.notes]
        lines += [f"   server log x{count}: {line}" for line, count in run.log_errors.get(name, {}).items()]
        if name.endswith("-bare") and name.removesuffix("-bare") in run.phases:
            lines += comparison(name.removesuffix("-bare"), run.phases[name.removesuffix("-bare")], figures)
    return lines


def report_searches(runs: Sequence[Run]) -> list[str]:
    """The postgres search against the embedded one, where both ran: memory flat in chunks, throughput."""
    lines = []
    for backend in sorted({run.backend for run in runs}):
        postgres = sorted((run for run in runs if run.backend == backend and run.search == "postgres"), key=_size)
        embedded = [run for run in runs if run.backend == backend and run.search == "embedded"]
        if not postgres:
            continue
        lines.append(f"== {backend}: the postgres search")
        rss = [(run.chunks, run.phases["offline"].tree_rss_mb) for run in postgres if "offline" in run.phases]
        if len(rss) > 1:
            (low, low_mb), (high, high_mb) = rss[0], rss[-1]
            lines.append(
                f"   server peak RSS (offline phase): {low_mb:.0f} MB at {low} chunks, {high_mb:.0f} MB at {high}; "
                + _goal(f"within {GOAL_RSS_GROWTH_MB:.0f} MB", high_mb - low_mb <= GOAL_RSS_GROWTH_MB)
            )
            for run in embedded:
                if "offline" in run.phases:
                    lines.append(
                        f"   (the embedded search: {run.phases['offline'].tree_rss_mb:.0f} MB at {run.chunks} chunks)"
                    )
        rates = {
            run.search: _rate(run.phases["throughput"]) for run in [*postgres, *embedded] if "throughput" in run.phases
        }
        if {"postgres", "embedded"} <= rates.keys():
            share = rates["postgres"] / rates["embedded"] if rates["embedded"] else 0.0
            lines.append(
                f"   throughput: {rates['postgres']:.1f} answers/s against {rates['embedded']:.1f} on the embedded "
                f"search ({share:.0%}); "
                + _goal(f"at least {GOAL_THROUGHPUT_SHARE:.0%} of it", share >= GOAL_THROUGHPUT_SHARE)
            )
    return lines


def _size(run: Run) -> int:
    return run.chunks


def _rate(figures: Figures) -> float:
    return len(figures.ok) / figures.seconds if figures.seconds else 0.0


# --- Command line ---------------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000], help="chunk counts to run")
    parser.add_argument(
        "--phase",
        action="append",
        choices=["warmed", "shared", "offline", "restart", "changing", "throughput", "llm"],
        help="phases to run (repeatable; default: all). throughput and llm run on the smallest chunk count",
    )
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument(
        "--postgres-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="a server where the benchmark may create and drop a database",
    )
    parser.add_argument(
        "--search",
        choices=["embedded", "postgres", "both"],
        default="embedded",
        help="BOTYARD_SEARCH of the servers; postgres needs --backend postgres and a --postgres-url with pgvector",
    )
    parser.add_argument(
        "--neighbours",
        type=int,
        default=0,
        metavar="N",
        help="other chatbots whose knowledge is written into the database before the measured one's",
    )
    parser.add_argument(
        "--neighbour-chunks", type=int, default=10_000, metavar="M", help="chunks of each other chatbot"
    )
    parser.add_argument("--queries", type=int, default=500, help="questions of the one-client phases")
    parser.add_argument("--change-interval", type=float, default=1.0, help="seconds between changes (changing phase)")
    parser.add_argument("--throughput-answers", type=int, default=2000, help="questions of the throughput phase")
    parser.add_argument(
        "--workers", type=int, default=THROUGHPUT_WORKERS, help="botyard serve --workers (throughput phase)"
    )
    parser.add_argument("--clients", type=int, default=THROUGHPUT_CLIENTS, help="clients (throughput phase)")
    parser.add_argument("--llm-streams", type=int, default=1000, help="streams of the LLM phase")
    parser.add_argument(
        "--llm-ramp", type=float, default=10.0, help="seconds over which the streams start (0: at once)"
    )
    parser.add_argument("--llm-clients", type=int, default=2, help="client processes of the LLM phase")
    parser.add_argument(
        "--llm-workers", type=int, default=1, help="botyard serve --workers (and the bare app's) in the LLM phase"
    )
    parser.add_argument("--per-session", type=int, default=10, help="questions per chat session")
    parser.add_argument("--off-topic", type=float, default=0.2, help="share of chit-chat / off-domain questions")
    parser.add_argument("--themes", type=int, default=300, help="themes of the synthetic knowledge")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="BOTYARD_NAME=VALUE",
        help="a setting for every server started (repeatable), e.g. BOTYARD_EMBEDDER=none",
    )
    args = parser.parse_args(argv)
    args.phase = args.phase or ["offline", "restart", "changing", "throughput", "llm"]
    if args.search != "embedded" and args.backend != "postgres":
        parser.error("--search postgres (or both) needs --backend postgres: the postgres search runs on PostgreSQL")
    if args.neighbours < 0 or args.neighbour_chunks < 1:
        parser.error("--neighbours must be 0 or more, --neighbour-chunks 1 or more")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    files = raise_open_files_limit(65_536)
    if "llm" in args.phase and files < 3 * args.llm_streams:
        log(f"warning: only {files} open files allowed; {args.llm_streams} streams need about {3 * args.llm_streams}")
    started = time.monotonic()
    vocabulary = Vocabulary()
    themes = make_themes(vocabulary, args.themes, args.seed)
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    searches = ["embedded", "postgres"] if args.search == "both" else [args.search]
    if "postgres" in searches:
        missing = has_pgvector(args.postgres_url)
        if missing is not None:
            print(
                f"--search {args.search}: {missing}; the postgres search needs PostgreSQL with pgvector (pass "
                "--postgres-url of such a server)",
                file=sys.stderr,
            )
            return 2
    smallest = min(args.chunks)
    print(f"{os.cpu_count()} CPUs, open files limit {files}", flush=True)
    runs = []
    for backend in backends:
        for search in searches:
            for chunks in sorted(set(args.chunks)):
                run = run_size(args, backend, search, chunks, vocabulary, themes, all_phases=chunks == smallest)
                runs.append(run)
                print("\n".join(report_run(run)), flush=True)
    if "postgres" in searches:
        print("\n".join(report_searches(runs)), flush=True)
    print(f"\ndone in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
