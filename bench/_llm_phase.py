"""bench/chat.py's `llm` phase: `--llm-streams` streams arriving over `--llm-ramp` seconds, against `botyard serve`
pointed at a fake model and, in the same run and with the identical load, against the bare app of
bench/_bare_stream.py pointed at the same fake: the anchor of the service's ratios.

The load comes from `--llm-clients` processes of bench/_llm_client.py (stream i from process i mod n), so that the
client is not one Python process reading every stream; each reports its CPU seconds and how late its event loop
ran, to show whether the client kept up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from _bare_stream import BareServer
from _chat_http import Answer, Figures, Question, ask, auth, create_sessions, measured
from _harness import Server, process_cpu_seconds

from botyard.db.base import new_uuid

ROOT = Path(__file__).resolve().parents[1]
LLM_TOKENS = 50
LLM_TOKEN_DELAY = 0.02
CLIENT = Path(__file__).with_name("_llm_client.py")

StartServer = Callable[[Server, str], AbstractContextManager[Server]]
"""Runs a server for one phase under a name (bench/chat.py's `phase_server`)."""


FAKE_LLM = """
import json, sys
sys.path.insert(0, {root!r})
from tests.support.fake_llm import FakeLlm, Reply
with FakeLlm(Reply.words({tokens}, delay={delay})) as llm:
    print(llm.url, flush=True)
    sys.stdin.read()  # until the benchmark closes our stdin
    errors = [repr(error) for error in llm.errors]
    print(json.dumps({{"requests": len(llm.requests), "errors": errors[:5], "error_count": len(errors)}}), flush=True)
"""


@dataclass
class FakeLlmProcess:
    url: str
    process: subprocess.Popen[str]
    summary: dict[str, Any] = field(default_factory=dict)


@contextlib.contextmanager
def fake_llm(tokens: int, delay: float) -> Iterator[FakeLlmProcess]:
    """tests/support/fake_llm.py in a process of its own (its thousand threads would fight the client for the GIL)."""
    code = FAKE_LLM.format(root=str(ROOT), tokens=tokens, delay=delay)
    process = subprocess.Popen(  # noqa: S603
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stdin is not None and process.stdout is not None
    running = FakeLlmProcess(process.stdout.readline().strip(), process)
    if not running.url.startswith("http"):
        process.kill()
        raise RuntimeError("the fake LLM did not start")
    try:
        yield running
    finally:
        process.stdin.close()
        with contextlib.suppress(json.JSONDecodeError):
            running.summary = json.loads(process.stdout.readline() or "{}")
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Load:
    """What the client processes measured."""

    answers: list[Answer]
    seconds: float
    cpu: list[float]
    lag_ms: list[float]
    peak: int


def client_load(
    server: Server, key: str, sessions: Sequence[str], asked: Sequence[Question], ramp: float, processes: int
) -> Load:
    """Stream `i` starts `ramp * i / len(asked)` seconds after the start, from client process `i % processes`."""
    count = len(asked)
    children = [
        subprocess.Popen(  # noqa: S603
            [sys.executable, str(CLIENT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        for _ in range(processes)
    ]
    try:
        for child in children:
            assert child.stdout is not None
            if child.stdout.readline().strip() != "ready":
                raise RuntimeError("a client process did not start")
        start_at = time.monotonic() + 0.5
        for index, child in enumerate(children):
            assert child.stdin is not None
            streams = [
                [number, sessions[number], asked[number].text, ramp * number / count]
                for number in range(index, count, processes)
            ]
            job = {"base": server.base, "key": key, "start_at": start_at, "streams": streams}
            child.stdin.write(json.dumps(job) + "\n")
            child.stdin.flush()
        results = []
        for child in children:
            assert child.stdout is not None
            results.append(json.loads(child.stdout.readline()))
        seconds = time.monotonic() - start_at
    finally:
        for child in children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=10)
            if child.poll() is None:
                child.kill()
                child.wait()
    answers: list[Answer | None] = [None] * count
    spans: list[tuple[float, int]] = []
    for result in results:
        for number, status, ttfb, total, started, text, error in result["answers"]:
            ttfb = math.nan if ttfb is None else ttfb
            answers[number] = Answer(asked[number], status, ttfb, total, text, error)
            spans += [(started, 1), (started + total / 1000, -1)]
    open_now = peak = 0
    for _, step in sorted(spans):
        open_now += step
        peak = max(peak, open_now)
    measured_answers = [answer for answer in answers if answer is not None]
    cpu, lags = [result["cpu"] for result in results], [result["lag_ms"] for result in results]
    return Load(measured_answers, seconds, cpu, lags, peak)


def mark_incomplete(figures: Figures) -> None:
    """An answer that does not end with the fake's last token counts as a failure."""
    last_token = f"w{LLM_TOKENS - 1}"
    incomplete = [answer for answer in figures.ok if not answer.declined and not answer.reply.endswith(last_token)]
    if not incomplete:
        return
    figures.notes.append(
        f"{len(incomplete)} answers did not end with {last_token!r}, e.g. {incomplete[0].reply[-120:]!r}"
    )
    marked = {id(answer) for answer in incomplete}
    figures.answers = [
        Answer(a.question, a.status, a.ttfb_ms, a.total_ms, a.text, "incomplete") if id(a) in marked else a
        for a in figures.answers
    ]


def streams(
    server: Server,
    key: str,
    sessions: Sequence[str],
    asked: Sequence[Question],
    ramp: float,
    processes: int,
    llm: FakeLlmProcess,
    setup: str,
) -> Figures:
    """One warm-up answer (on the spare last session), then the measured load."""

    async def warm_up() -> Answer:
        async with httpx.AsyncClient(base_url=server.base, headers=auth(key), timeout=300) as client:
            return await ask(client, sessions[-1], asked[0])

    warmup = asyncio.run(warm_up())
    figures = Figures([], warmup_ms=[warmup.total_ms], setup=setup, ramp=ramp)
    figures.warmup_note = "one answer first (the service's builds the index)"
    if warmup.failed:
        figures.notes.append(f"warm-up failed: {warmup.status} {warmup.error or warmup.text[:200]}")
    llm_cpu = process_cpu_seconds(llm.process.pid)
    with measured(figures, server):
        load = client_load(server, key, sessions, asked, ramp, processes)
    figures.answers, figures.seconds, figures.peak_streams = load.answers, load.seconds, load.peak
    figures.client_cpu += sum(load.cpu)
    busiest = max(load.cpu) / load.seconds if load.seconds else 0.0
    cpu, lags = " / ".join(f"{cpu:.1f}" for cpu in load.cpu), " / ".join(f"{lag:.0f}" for lag in load.lag_ms)
    figures.notes.append(
        f"client: {processes} processes, CPU {cpu} s over {load.seconds:.1f} s (the busiest {busiest:.0%} of a core), "
        f"event loop late by at most {lags} ms; fake LLM CPU {process_cpu_seconds(llm.process.pid) - llm_cpu:.1f} s"
    )
    mark_incomplete(figures)
    return figures


def llm_phases(
    start: StartServer,
    data_dir: Path,
    env: dict[str, str],
    key: str,
    bot: str,
    asked: Sequence[Question],
    ramp: float,
    processes: int,
    workers: int = 1,
) -> dict[str, Figures]:
    """The service and the bare app under the same load, one after the other, with one fake LLM."""
    count = len(asked)
    what = f"fake LLM {LLM_TOKENS} tokens x {LLM_TOKEN_DELAY * 1000:.0f} ms, {count} streams over {ramp:g} s"
    what = f"--workers {workers}, {what}"
    with fake_llm(LLM_TOKENS, LLM_TOKEN_DELAY) as llm:
        settings = env | {"BOTYARD_LLM_BASE_URL": llm.url, "BOTYARD_LLM_API_KEY": "sk-bench"}
        with start(Server(data_dir, settings, workers), "llm") as server:

            async def make_sessions() -> list[str]:
                async with httpx.AsyncClient(base_url=server.base, headers=auth(key), timeout=300) as client:
                    return await create_sessions(client, bot, count + 1)

            sessions = asyncio.run(make_sessions())
            service = streams(server, key, sessions, asked, ramp, processes, llm, f"botyard serve, {what}")
        with start(BareServer(data_dir, workers, llm_url=llm.url), "llm-bare") as server:
            sessions = [new_uuid() for _ in range(count + 1)]
            bare = streams(server, key, sessions, asked, ramp, processes, llm, f"bare FastAPI relay, {what}")
    service.notes.append(f"fake LLM: {llm.summary}")
    return {"llm": service, "llm-bare": bare}
