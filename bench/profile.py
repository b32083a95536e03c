"""Where an answer's CPU goes: `bench/chat.py` run with a sampling profiler on its server, the samples sorted into
the answer path's stages.

    python bench/profile.py                         # the throughput phase at 10k chunks, then the LLM phase
    python bench/profile.py --phase throughput --seconds 30 --delay 25

For each phase, `bench/chat.py --chunks N --phase P` runs as usual; once the phase has started and `--delay` seconds
have passed (its warm-up), `py-spy record --subprocesses` samples the `botyard serve` process and its workers for
`--seconds` at `--rate` Hz. A sample counts for the first stage of `STAGES` whose file (and function, where given)
is on its stack, most specific first (a search inside routing counts as routing's); a pool thread waiting for work
is idle and not counted. The table shows each stage's share of the workers' samples and that share of the phase's
server CPU per answer, as bench/chat.py printed it (`server CPU` over its answers). SQLAlchemy runs a statement's
ORM work in a greenlet whose caller the profiler does not see: those samples are one row ("statements").

Needs py-spy (a dev dependency) and the right to trace the server (root, or ptrace allowed).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

BENCH = Path(__file__).resolve().parent
FRAME = re.compile(r"^(?P<fn>.*) \((?P<file>[^:]+):\d+\)$")
STARTS = {"throughput": "2 workers and 8 clients", "llm": "fake LLM, "}
"""How bench/chat.py's output says the phase has begun."""

STAGES: list[tuple[str, str, str]] = [
    ("the query's embeddings: MiniLM (thread)", "embedding/minilm", ""),
    ("the query's embeddings: USE-m3 (thread)", "embedding/use", ""),
    ("the query's embeddings: MiniLM (thread)", "onnxruntime", ""),
    ("finish (stored answer, review item, outcome)", "finish.py", "store"),
    ("finish (stored answer, review item, outcome)", "answering/", "_finalise"),
    ("events and their encoding, checkpoints", "answering/", "_checkpoint"),
    ("routing (supervisor, intents, evidence, hand-off check)", "built_in.py", "answered_by_knowledge"),
    ("routing (supervisor, intents, evidence, hand-off check)", "supervisor.py", "AgentRouter.choose"),
    ("prepare's other reads and write (history, agents, message)", "handoff_policy", ""),
    ("the relevance decision", "retrieval/relevance", ""),
    ("the relevance decision", "retrieval/baseline", ""),
    ("passages for the quote (their closeness)", "retriever.py", "with_passages"),
    ("the embeddings' loop side (queue, the pair's halves)", "retriever.py", "embed_query"),
    ("the embeddings' loop side (queue, the pair's halves)", "botyard/embedding", ""),
    ("the searches (BM25, dense, fusion)", "retriever.py", "Retriever.retrieve"),
    ("the model answerer (prompt, LLM client)", "answering/model", ""),
    ("the model answerer (prompt, LLM client)", "botyard/llm", ""),
    ("the model answerer (prompt, LLM client)", "httpx", ""),
    ("the model answerer (prompt, LLM client)", "httpcore", ""),
    ("the offline answerer (quotes, confidence)", "answering/offline", ""),
    ("the searches (BM25, dense, fusion)", "retrieval/", ""),  # in the threads that search
    ("rate limit (check, prune, count)", "ratelimit", ""),
    ("authorisation (the key, the session's access)", "chat/access", ""),
    ("authorisation (the key, the session's access)", "botyard/auth", ""),
    ("authorisation (the key, the session's access)", "botyard/deps", ""),
    ("prepare's other reads and write (history, agents, message)", "prepare.py", ""),
    ("events and their encoding, checkpoints", "answering/", ""),
    ("events and their encoding, checkpoints", "botyard/sse", ""),
    ("the stores: statements (SQLAlchemy, driver)", "sqlalchemy", ""),
    ("the stores: statements (SQLAlchemy, driver)", "aiosqlite", ""),
    ("HTTP, middleware, the event loop", "botyard/", ""),
    ("HTTP, middleware, the event loop", "uvicorn", ""),
    ("HTTP, middleware, the event loop", "starlette", ""),
    ("HTTP, middleware, the event loop", "fastapi", ""),
    ("HTTP, middleware, the event loop", "h11", ""),
    ("HTTP, middleware, the event loop", "asyncio", ""),
    ("HTTP, middleware, the event loop", "selectors", ""),
    ("HTTP, middleware, the event loop", "threading", ""),
]


def stage(frames: Sequence[tuple[str, str]]) -> str:
    for name, file_part, function_part in STAGES:
        if any(file_part in file and function_part in function for function, file in frames):
            return name
    return "unattributed (native frames)"


def stages(raw: Path) -> Counter[str]:
    """The workers' samples of a py-spy raw (collapsed) file, by stage."""
    counts: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack.count("process ") < 2:  # the supervising process, not a worker
            continue
        frames = [(m["fn"], m["file"]) for part in stack.split(";") if (m := FRAME.match(part))]
        if frames and frames[-1][0] == "_worker":  # a pool thread waiting for work
            continue
        counts[stage(frames)] += int(count)
    return counts


def cpu_per_answer(output: str, phase: str) -> float | None:
    """Milliseconds of server CPU per answer of the phase, from bench/chat.py's report."""
    heading = {"throughput": r"-- throughput \(", "llm": r"-- llm \("}[phase]
    found = re.search(heading + r".*?: (\d+) answers.*?\n(?:.*\n)*?\s+server CPU ([\d.]+) s", output)
    return float(found[2]) * 1000 / int(found[1]) if found else None


def server_pid(bench: subprocess.Popen[str]) -> int | None:
    """The `botyard serve` process under the benchmark (the one whose workers answer), read from /proc."""
    for folder in Path("/proc").iterdir():
        try:
            parent = int((folder / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (folder / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if parent == bench.pid and "botyard serve" in command:
            return int(folder.name)
    return None


def profile(phase: str, args: argparse.Namespace, folder: Path) -> None:
    log = folder / f"{phase}.txt"
    command = [sys.executable, str(BENCH / "chat.py"), "--chunks", str(args.chunks), "--phase", phase]
    if phase == "llm":
        command += ["--llm-workers", str(args.llm_workers)]
    with log.open("w") as out:
        bench = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, text=True)  # noqa: S603
        while STARTS[phase] not in log.read_text() and bench.poll() is None:
            time.sleep(0.5)
        time.sleep(args.delay)
        pid = server_pid(bench)
        raw = folder / f"{phase}.raw"
        if pid is not None:
            spy = [str(Path(sys.executable).with_name("py-spy")), "record", "--pid", str(pid), "--subprocesses"]
            spy += ["--nonblocking", "--format", "raw", "--duration", str(args.seconds), "--rate", str(args.rate)]
            spy += ["-o", str(raw)]
            subprocess.run(spy, capture_output=True, check=False)  # noqa: S603
        bench.wait()
    report(phase, raw, cpu_per_answer(log.read_text(), phase))


def report(phase: str, raw: Path, per_answer: float | None) -> None:
    if not raw.exists():
        print(f"{phase}: no samples (was the server found, may py-spy trace it?)")
        return
    counts = stages(raw)
    total = sum(counts.values()) or 1
    cpu = f"{per_answer:.1f} ms of server CPU per answer" if per_answer else "server CPU per answer unknown"
    print(f"-- {phase}: {total} samples in the workers, {cpu}")
    for name, count in counts.most_common():
        ms = f"{count / total * per_answer:7.2f} ms" if per_answer else ""
        print(f"   {count * 100 / total:5.1f}%  {ms}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phase", action="append", choices=sorted(STARTS), help="phases (default: both)")
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--llm-workers", type=int, default=2)
    parser.add_argument("--delay", type=float, default=20.0, help="seconds after the phase starts (its warm-up)")
    parser.add_argument("--seconds", type=int, default=30, help="how long to sample")
    parser.add_argument("--rate", type=int, default=100, help="samples a second")
    parser.add_argument("--keep", type=Path, help="keep the benchmark's output and the raw samples here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for phase in args.phase or ["throughput", "llm"]:
            profile(phase, args, folder)


if __name__ == "__main__":
    main()
