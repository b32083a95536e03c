"""What bench/chat.py's phases share: a question, one streamed answer over HTTP and its timings, the figures a phase
measured, and the CPU and memory readings around a measurement."""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
from _harness import MemorySampler, Server, descendants, load_average, percentile, process_cpu_seconds

from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from botyard.answering.turn.json_guard import NOT_JSON
from botyard.answering.turn.stream import FAILURE_MESSAGE


@dataclass(frozen=True)
class Question:
    text: str
    on_topic: bool


@dataclass(frozen=True)
class Answer:
    question: Question
    status: int
    ttfb_ms: float
    total_ms: float
    text: str
    error: str = ""

    @property
    def reply(self) -> str:
        return self.text.removesuffix(NOT_JSON).strip()

    @property
    def declined(self) -> bool:
        return self.reply == DEFAULT_NO_ANSWER_MESSAGE

    @property
    def failed(self) -> bool:
        return self.status != 200 or bool(self.error) or FAILURE_MESSAGE in self.text


async def ask(client: httpx.AsyncClient, session: str, question: Question) -> Answer:
    """One streamed answer: milliseconds to the first byte of its body and to its end."""
    url = f"/api/v1/session/{session}/message/stream"
    started = time.perf_counter()
    first = math.nan
    parts: list[bytes] = []
    status = 0
    try:
        async with client.stream("POST", url, json={"query": question.text}) as response:
            status = response.status_code
            async for data in response.aiter_raw():
                if data and math.isnan(first):
                    first = time.perf_counter()
                parts.append(data)
    except httpx.HTTPError as error:
        elapsed = (time.perf_counter() - started) * 1000
        cause = error.__cause__ or error.__context__  # httpx's own message is often empty: the socket's error says more
        detail = f"{type(error).__name__}: {error or repr(cause)}"
        received = "" if math.isnan(first) else f" after {len(b''.join(parts))} bytes"
        return Answer(question, status, math.nan, elapsed, "", detail + received)
    ended = time.perf_counter()
    text = b"".join(parts).decode(errors="replace")
    return Answer(question, status, (first - started) * 1000, (ended - started) * 1000, text)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def create_sessions(client: httpx.AsyncClient, bot: str, count: int, concurrency: int = 8) -> list[str]:
    gate = asyncio.Semaphore(concurrency)

    async def one() -> str:
        async with gate:
            response = await client.post(f"/api/v1/chatbot/{bot}/session/create")
            uuid: str = response.raise_for_status().json()["uuid"]
            return uuid

    return list(await asyncio.gather(*(one() for _ in range(count))))


@dataclass
class Figures:
    """What one phase measured."""

    answers: list[Answer]
    seconds: float = 0.0
    warmup_ms: list[float] = field(default_factory=list)
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    load: float = 0.0
    tree_rss_mb: float = 0.0
    tree_rss_end_mb: float = 0.0
    peak_streams: int = 0
    ramp: float = 0.0
    """Seconds over which the streams of the LLM phase started."""
    notes: list[str] = field(default_factory=list)
    setup: str = ""
    warmup_note: str = "the first answer builds the index"

    @property
    def ok(self) -> list[Answer]:
        return [answer for answer in self.answers if not answer.failed]

    def ttfb(self) -> list[float]:
        return [answer.ttfb_ms for answer in self.ok if math.isfinite(answer.ttfb_ms)]

    def total(self) -> list[float]:
        return [answer.total_ms for answer in self.ok]


def tree_cpu_seconds(pid: int) -> float:
    return process_cpu_seconds(pid) + sum(process_cpu_seconds(child) for child in descendants(pid))


@contextlib.contextmanager
def measured(figures: Figures, server: Server) -> Iterator[None]:
    """Server and client CPU, load average and the server tree's peak memory around a phase's measurement."""
    figures.load = load_average()
    server_cpu, client_cpu = tree_cpu_seconds(server.pid), time.process_time()
    workers = {pid: tree_cpu_seconds(pid) for pid in server.service_pids()[1:]}
    with MemorySampler(server.pid, interval=0.2) as memory:
        yield
    figures.server_cpu = tree_cpu_seconds(server.pid) - server_cpu
    if workers:  # the kernel hands each connection to one worker: an uneven split caps the throughput
        split = " / ".join(f"{tree_cpu_seconds(pid) - before:.1f}" for pid, before in workers.items())
        figures.notes.append(f"CPU seconds per worker: {split}")
    figures.client_cpu = time.process_time() - client_cpu
    figures.tree_rss_mb = memory.peaks.tree_rss_kb / 1024
    figures.tree_rss_end_mb = memory.peaks.tree_rss_end_kb / 1024


def _ratio(service: float, bare: float) -> str:
    if not (math.isfinite(service) and math.isfinite(bare)) or bare == 0:
        return "-"
    return f"{service / bare:.3g}x"


def comparison(name: str, service: Figures, bare: Figures) -> list[str]:
    """The service beside the bare app, and the ratio service/bare."""
    rows: list[tuple[str, float, float]] = []
    for what, values in (("first byte", Figures.ttfb), ("full answer", Figures.total)):
        ours, theirs = values(service), values(bare)
        for fraction in (0.5, 0.95, 0.99) if what == "first byte" else (0.5, 0.99):
            rows.append((f"{what} p{fraction * 100:.0f} ms", percentile(ours, fraction), percentile(theirs, fraction)))
    failures = (float(len(service.answers) - len(service.ok)), float(len(bare.answers) - len(bare.ok)))
    rows.append(("failures", *failures))
    rate = (
        len(service.ok) / service.seconds if service.seconds else math.nan,
        len(bare.ok) / bare.seconds if bare.seconds else math.nan,
    )
    rows.append(("answers/s", *rate))
    rows.append(("server CPU s", service.server_cpu, bare.server_cpu))
    rows.append(("client CPU s", service.client_cpu, bare.client_cpu))
    lines = [f"-- {name}: service vs bare FastAPI (same load, same run; ratio = service / bare)"]
    lines.append(f"   {'':<20}{'service':>10}{'bare':>10}{'ratio':>9}")
    for label, mine, anchor in rows:
        lines.append(f"   {label:<20}{mine:>10.1f}{anchor:>10.1f}{_ratio(mine, anchor):>9}")
    return lines
