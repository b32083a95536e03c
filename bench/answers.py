"""Answer-quality benchmark: `../shared/data/answers/probe.py` over every knowledge base, against a fresh server.

For each mode a new `botyard serve` (its own temporary data directory and SQLite file, a key made with
`botyard key create`, a free port) answers the probe; each KB folder is probed on its own (`probe.py KB --out ...`,
run with this interpreter: `requests` is a dev dependency), into a chatbot of its own.

`--search embedded|postgres|both` chooses the search engine (bench/_engines.py): embedded on the SQLite file,
postgres on a fresh database of its own on the `--postgres-url` server (pgvector; made with `botyard search migrate`,
dropped afterwards). `both` runs a fresh server per engine, one after the other, prints each engine's table, then
counts the probe questions whose outcome (answered, refused, confidence) and words are the same on both.

- `offline`: the default answerer, no language model.
- `llm`: the service pointed at `bench/_passage_llm.py`, a fake OpenAI-compatible model that answers with the first
  passage of its prompt, or the no-answer sentence when the prompt holds none (it never judges relevance, so in this
  mode refusals say only that retrieval gave the model nothing). It records every prompt, which gives
  **context recall**: the share of covered questions (questions.json, and the judged second turn of each
  follow-up) whose prompt held an `expect_any` substring in its reference documents, compared after probe.py's
  normalisation (its own `norm_key`); and **asked**: the share whose prompt reached the model at all.

One table: per KB and TOTAL, from probe.py's `--out` JSON and each answer's `meta_json.confidence`:

- covered questions (questions.json): answered % (confident or unsure), unsure % (of those answered: the reply said
  it may not cover the question), false refusals %;
- uncovered questions (off_topic.json): refused % (`none`: the no-answer reply), unsure % (`low`), and confidently
  answered % (neither refused by probe.py's markers nor flagged `low` or `none`: probe.py's `offConf%`);
- follow-ups answered %, first byte median and p95 (ms), and in LLM mode asked % and context recall %.

    python bench/answers.py                          # both modes, every KB of ../shared/data/answers
    python bench/answers.py --mode llm ../shared/data/answers/01-en-dental --limit 3 -v
    python bench/answers.py --mode offline --search both --results /tmp/answers   # each engine's JSON kept
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from _engines import add_search_arguments, engine_server, engines
from _harness import Server
from _passage_llm import PassageLlm

ROOT = Path(__file__).resolve().parent.parent
ANSWERS = ROOT.parent / "shared" / "data" / "answers"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_probe(path: Path) -> ModuleType:
    """probe.py as a module, for its normalisation (`norm_key`) and its totals."""
    spec = importlib.util.spec_from_file_location("answer_probe", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class KbRun:
    """One KB in one mode: probe.py's result for it and, in LLM mode, what the model was given."""

    name: str
    result: dict[str, Any]
    asked: int | None = None
    recalled: int | None = None
    covered: int = 0


def documents_of(messages: list[dict[str, Any]]) -> str:
    """The reference documents of an answer prompt (the last user message's block)."""
    last = str(messages[-1].get("content") or "")
    start, end = last.find("<reference_documents>"), last.rfind("</reference_documents>")
    return last[start:end] if start >= 0 else ""


def answer_prompt(prompts: list[list[dict[str, Any]]], turns: Sequence[str]) -> list[dict[str, Any]] | None:
    """The answer prompt of the last of `turns` (its earlier turns in the history), if the model was asked."""
    *earlier, query = turns
    for messages in prompts:
        last = str(messages[-1].get("content") or "")
        # The condense request ends "Last question: ...": never an answer prompt's "\n\nQuestion: ...".
        if not (last == f"Question: {query}" or last.endswith(f"\n\nQuestion: {query}")):
            continue
        history = {str(message.get("content")) for message in messages[:-1] if message.get("role") == "user"}
        if all(turn in history for turn in earlier):
            return messages
    return None


def context_recall(run: KbRun, prompts: list[list[dict[str, Any]]], probe: ModuleType, verbose: bool = False) -> None:
    run.asked = run.recalled = run.covered = 0
    for item in run.result["results"]:
        if item["type"] == "off_topic" or not item.get("expect_any"):
            continue
        run.covered += 1
        messages = answer_prompt(prompts, item["turns"] or [item["question"]])
        if messages is None:
            if verbose:
                print(f"  not asked: {item['turns'] or item['question']}", flush=True)
            continue
        run.asked += 1
        documents = probe.norm_key(documents_of(messages))
        recalled = any(probe.norm_key(e) and probe.norm_key(e) in documents for e in item["expect_any"])
        run.recalled += recalled
        if verbose and not recalled:
            print(f"  context miss: {item['turns'] or item['question']}", flush=True)


def probe_kb(args: argparse.Namespace, server: Server, key: str, kb: Path, out: Path) -> dict[str, Any]:
    command = [sys.executable, str(args.probe), str(kb), "--out", str(out), "--jobs", "1"]
    command += ["--limit", str(args.limit)] * bool(args.limit) + ["-v"] * args.verbose
    env = os.environ | {"BASE": server.base, "KEY": key}
    shown = subprocess.run(command, env=env, capture_output=True, text=True, check=False)  # noqa: S603
    if args.verbose:
        log(shown.stdout.rstrip())
    if not out.exists():
        raise RuntimeError(f"probe.py wrote no result for {kb}: {shown.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.read_text())["kbs"][0]
    return result


@contextlib.contextmanager
def served(
    mode: str, engine: str, args: argparse.Namespace, data_dir: Path
) -> Iterator[tuple[Server, str, PassageLlm | None]]:
    """A fresh server for `mode` (and its fake model in LLM mode) on the search `engine`, with an owner's key;
    stopped (and on postgres its database dropped) afterwards."""
    with contextlib.ExitStack() as stack:
        llm = stack.enter_context(PassageLlm()) if mode == "llm" else None
        env = dict(item.split("=", 1) for item in args.server_env)
        if llm is not None:
            env |= {"BOTYARD_LLM_BASE_URL": llm.url, "BOTYARD_LLM_API_KEY": "sk-bench"}
        server, key = stack.enter_context(engine_server(engine, args.postgres_url, data_dir, "botyard_answers", env))
        yield server, key, llm


def run_mode(args: argparse.Namespace, mode: str, engine: str, kbs: list[Path], probe: ModuleType) -> list[KbRun]:
    runs = []
    with tempfile.TemporaryDirectory(prefix=f"botyard-bench-answers-{engine}-{mode}-") as directory:
        data_dir = Path(directory)
        with served(mode, engine, args, data_dir) as (server, key, llm):
            for kb in kbs:
                log(f"{engine} {mode}: probing {kb.name}...")
                if llm is not None:
                    llm.forget()
                out = data_dir / f"{kb.name}.json"
                run = KbRun(kb.name, probe_kb(args, server, key, kb, out))
                if args.results is not None:
                    args.results.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(out, args.results / f"{engine}-{mode}-{kb.name}.json")
                if llm is not None:
                    context_recall(run, llm.requests, probe, args.verbose)
                runs.append(run)
            errors = [line for line in server.log_path.read_text(errors="replace").splitlines() if "Traceback" in line]
            if errors:
                log(f"{mode}: the server logged {len(errors)} tracebacks; its log ends with:\n{server.log_tail(30)}")
    return runs


# --- Report ---------------------------------------------------------------------------------------------------------

COLUMNS = [("mode", 7), ("KB", 24), ("ans%", 6), ("unsure%", 7), ("falseRef%", 9), ("offRef%", 7), ("offUns%", 7)]
COLUMNS += [("offConf%", 8), ("follow%", 7), ("fbMed", 7), ("fbP95", 7), ("errs", 4), ("asked%", 6), ("ctxRec%", 7)]


@dataclass
class Confidences:
    """What the answers' confidence says: covered questions answered, and of them unsure; uncovered questions
    refused (`none`) and unsure (`low`)."""

    covered_answered: int = 0
    covered_unsure: int = 0
    uncovered: int = 0
    uncovered_none: int = 0
    uncovered_low: int = 0

    @classmethod
    def of(cls, results: list[dict[str, Any]]) -> Confidences:
        found = cls()
        for item in results:
            if item["type"] == "question" and item["answered"]:
                found.covered_answered += 1
                found.covered_unsure += item.get("confidence") == "low"
            elif item["type"] == "off_topic":
                found.uncovered += 1
                found.uncovered_none += item.get("confidence") == "none"
                found.uncovered_low += item.get("confidence") == "low"
        return found

    def __add__(self, other: Confidences) -> Confidences:
        return Confidences(*(a + b for a, b in zip(vars(self).values(), vars(other).values(), strict=True)))


def _pct(part: int | None, whole: int) -> float | None:
    return None if part is None or not whole else round(100 * part / whole, 1)


def _cell(value: object, width: int) -> str:
    return ("-" if value is None else str(value)).rjust(width)


def row(
    mode: str,
    label: str,
    summary: dict[str, Any],
    confidences: Confidences,
    asked: float | None,
    recall: float | None,
) -> str:
    median, p95 = (
        None if ms is None else round(ms) for ms in (summary["first_byte_median_ms"], summary["first_byte_p95_ms"])
    )
    unsure = _pct(confidences.covered_unsure, confidences.covered_answered)
    refused = _pct(confidences.uncovered_none, confidences.uncovered)
    values = [summary["answered_pct"], unsure, summary["false_refusal_pct"], refused]
    values += [_pct(confidences.uncovered_low, confidences.uncovered), summary.get("off_topic_confident_pct")]
    values += [summary["followups_answered_pct"], median, p95, summary["errors"], asked, recall]
    cells = [mode.ljust(7), label[:24].ljust(24)]
    cells += [_cell(value, width) for value, (_, width) in zip(values, COLUMNS[2:], strict=True)]
    return "  ".join(cells)


def report(mode: str, runs: list[KbRun], probe: ModuleType) -> list[str]:
    lines = []
    for run in runs:
        label = run.name + (" (ERROR)" if run.result.get("error") else "")
        confidences = Confidences.of(run.result["results"])
        asked, recalled = _pct(run.asked, run.covered), _pct(run.recalled, run.covered)
        lines.append(row(mode, label, run.result["summary"], confidences, asked, recalled))
    covered = sum(run.covered for run in runs)
    llm = mode == "llm"
    asked = _pct(sum(run.asked or 0 for run in runs), covered) if llm else None
    recall = _pct(sum(run.recalled or 0 for run in runs), covered) if llm else None
    every = sum((Confidences.of(run.result["results"]) for run in runs), Confidences())
    lines.append(row(mode, "TOTAL", probe.totals([run.result for run in runs]), every, asked, recall))
    return lines


def outcome(item: dict[str, Any]) -> tuple[object, ...]:
    """What a probe question's result says, beyond its wording: answered, refused, the answer's confidence."""
    return item["answered"], item["refused"], item.get("confidence")


def asked(item: dict[str, Any]) -> str:
    return str(item["question"] or " | ".join(item["turns"]))


def compared(mode: str, embedded: list[KbRun], postgres: list[KbRun]) -> list[str]:
    """How many probe questions have the same outcome (`outcome`) and the same words on both engines, and each
    that has not."""
    lines, total, same, worded = [], 0, 0, 0
    for first, second in zip(embedded, postgres, strict=True):
        others = {(item["type"], asked(item)): item for item in second.result["results"]}
        for item in first.result["results"]:
            total += 1
            other = others.get((item["type"], asked(item)))
            if other is not None and outcome(item) == outcome(other):
                same += 1
            else:
                theirs = outcome(other) if other is not None else "not asked"
                lines.append(f"  {first.name} {item['type']} {asked(item)!r}: {outcome(item)} / {theirs}")
            worded += other is not None and item["answer"] == other["answer"]
    head = f"{mode}: {same}/{total} questions with the same outcome (answered, refused, confidence) on both engines"
    return [f"{head}, {worded}/{total} with the same words", *lines]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("kb_dirs", nargs="*", type=Path, help=f"KB folders (default: every folder of {ANSWERS})")
    parser.add_argument("--mode", choices=["offline", "llm", "both"], default="both")
    parser.add_argument("--probe", type=Path, default=ANSWERS / "probe.py", help="the probe script")
    parser.add_argument("--limit", type=int, default=0, help="at most N questions of each kind per KB (smoke runs)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print probe.py's misses")
    parser.add_argument(
        "--results", type=Path, help="keep probe.py's per-question JSON here, one ENGINE-MODE-KB.json file per KB"
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="BOTYARD_NAME=VALUE",
        help="a setting for every server started (repeatable), e.g. BOTYARD_EMBEDDER=none",
    )
    add_search_arguments(parser)
    args = parser.parse_args(argv)
    args.engines = engines(parser, args)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    folders = args.kb_dirs or [Path(path) for path in sorted(glob.glob(f"{ANSWERS}/*/"))]
    kbs = [folder.resolve() for folder in folders if (folder / "questions.json").is_file()]
    if not kbs:
        log("no KB folder (one with questions.json) found")
        return 1
    probe = load_probe(args.probe)
    modes = ["offline", "llm"] if args.mode == "both" else [args.mode]
    started = time.monotonic()
    head = "  ".join(name.ljust(width) if i < 2 else name.rjust(width) for i, (name, width) in enumerate(COLUMNS))
    runs: dict[tuple[str, str], list[KbRun]] = {}
    for engine in args.engines:
        lines = [f"== {engine} search", head]
        for mode in modes:
            runs[engine, mode] = run_mode(args, mode, engine, kbs, probe)
            lines += report(mode, runs[engine, mode], probe)
        print("\n".join(lines) + "\n", flush=True)
    if len(args.engines) == 2:
        for mode in modes:
            print("\n".join(compared(mode, runs["embedded", mode], runs["postgres", mode])), flush=True)
    print(f"\n{len(kbs)} KBs, done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
