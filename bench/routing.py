"""Routing benchmark: `../shared/data/routing/route_probe.py` over its set, against a fresh server per search engine.

For each engine (`--search embedded|postgres|both`, bench/_engines.py) a new `botyard serve` (its own temporary data
directory; embedded on a SQLite file, postgres on a fresh database of its own on `--postgres-url`, made with
`botyard search migrate` and dropped afterwards; a key made with `botyard key create`, a free port) answers the
probe: `route_probe.py SET.json --out ...`, run with this interpreter (`requests` is a dev dependency), which builds
a chatbot per setup with that setup's agents and checks which agent answers each case and conversation.

One table per engine, from route_probe.py's `--out` JSON: per setup and TOTAL the cases and conversations routed to
an expected agent (n, ok, accuracy), errors, and the median and p95 time of a judged message's reply (the stream read
whole, in ms). With `both`, the cases whose chosen agent differs between the engines are listed after the tables.

    python bench/routing.py                                   # embedded, the public set
    python bench/routing.py --search both --results /tmp/routing   # both engines; keep each engine's JSON
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _engines import add_search_arguments, engine_server, engines
from _harness import percentile

ROOT = Path(__file__).resolve().parent.parent
ROUTING = ROOT.parent / "shared" / "data" / "routing"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def probe(args: argparse.Namespace, engine: str) -> dict[str, Any]:
    """route_probe.py's `--out` document of a run against a fresh server on `engine`."""
    with tempfile.TemporaryDirectory(prefix=f"botyard-bench-routing-{engine}-") as directory:
        data_dir = Path(directory)
        settings = dict(item.split("=", 1) for item in args.server_env)
        with engine_server(engine, args.postgres_url, data_dir, "botyard_routing", settings) as (server, key):
            out = data_dir / "routing.json"
            command = [sys.executable, str(args.probe), str(args.set), "--out", str(out)]
            command += ["--limit", str(args.limit)] * bool(args.limit) + ["-v"] * args.verbose
            for only in args.only:
                command += ["--only", only]
            log(f"{engine}: probing {args.set.name}...")
            shown = subprocess.run(  # noqa: S603
                command, env=os.environ | {"BASE": server.base, "KEY": key}, capture_output=True, text=True, check=False
            )
            if args.verbose:
                log(shown.stdout.rstrip())
            if not out.exists():
                raise RuntimeError(f"route_probe.py wrote no result: {shown.stderr[-2000:]}")
            tracebacks = sum("Traceback" in line for line in server.log_path.read_text(errors="replace").splitlines())
            if tracebacks:
                log(f"{engine}: the server logged {tracebacks} tracebacks; its log ends with:\n{server.log_tail(30)}")
            document: dict[str, Any] = json.loads(out.read_text())
    if args.results is not None:
        args.results.mkdir(parents=True, exist_ok=True)
        (args.results / f"routing-{engine}.json").write_text(json.dumps(document, ensure_ascii=False, indent=1))
    return document


# --- Report ---------------------------------------------------------------------------------------------------------

COLUMNS = [("setup", 32), ("n", 4), ("ok", 4), ("acc%", 6), ("cases%", 6), ("convs%", 6), ("errs", 4)]
COLUMNS += [("replyP50", 8), ("replyP95", 8)]


def _pct(ok: int, n: int) -> float | None:
    return round(100 * ok / n, 1) if n else None


def reply_ms(results: list[dict[str, Any]], fraction: float) -> int | None:
    """A nearest-rank percentile of the judged (last) messages' reply times, in ms."""
    times = [result["ms"][-1] for result in results if result.get("ms") and result["ms"][-1] is not None]
    return round(percentile(times, fraction)) if times else None


def row(label: str, results: list[dict[str, Any]]) -> str:
    cases = [result for result in results if result["type"] == "case"]
    convs = [result for result in results if result["type"] == "conversation"]
    ok = sum(bool(result["ok"]) for result in results)
    values: list[object] = [len(results), ok, _pct(ok, len(results))]
    values += [_pct(sum(bool(result["ok"]) for result in group), len(group)) for group in (cases, convs)]
    values += [sum(bool(result.get("error")) for result in results), reply_ms(results, 0.5), reply_ms(results, 0.95)]
    cells = [
        ("-" if value is None else str(value)).rjust(width)
        for value, (_, width) in zip(values, COLUMNS[1:], strict=True)
    ]
    return "  ".join([label[:32].ljust(32), *cells])


def report(engine: str, document: dict[str, Any]) -> list[str]:
    head = "  ".join(name.ljust(width) if i < 1 else name.rjust(width) for i, (name, width) in enumerate(COLUMNS))
    lines = [f"== {engine} search", head]
    every = []
    for setup in document["setups"]:
        label = setup["name"] + (" (ERROR)" if setup.get("error") else "")
        lines.append(row(label, setup["results"]))
        every += setup["results"]
    lines.append(row("TOTAL", every))
    return lines


def chosen(document: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    """The agent route_probe.py saw answer each case and conversation, by setup, type and turns."""
    return {
        (setup["name"], result["type"], " | ".join(result["turns"])): result["agent"]
        for setup in document["setups"]
        for result in setup["results"]
    }


def compared(embedded: dict[str, Any], postgres: dict[str, Any]) -> list[str]:
    """How many cases and conversations were routed to the same agent on both engines, and each that was not."""
    first, second = chosen(embedded), chosen(postgres)
    differ = [
        f"  {key[0]} {key[1]} {key[2]!r}: {agent} / {second.get(key)}"
        for key, agent in first.items()
        if second.get(key) != agent
    ]
    same = len(first) - len(differ)
    return [f"{same}/{len(first)} cases and conversations routed to the same agent on both engines", *differ]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument(
        "set", nargs="?", type=Path, default=ROUTING / "routing_public.json", help="the routing set (SET.json)"
    )
    parser.add_argument("--probe", type=Path, default=ROUTING / "route_probe.py", help="the probe script")
    parser.add_argument("--limit", type=int, default=0, help="the first N cases and conversations per setup")
    parser.add_argument("--only", action="append", default=[], help="only the setups whose name holds TEXT")
    parser.add_argument("-v", "--verbose", action="store_true", help="print route_probe.py's tables and misses")
    parser.add_argument("--results", type=Path, help="keep route_probe.py's JSON here, one routing-ENGINE.json")
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
    started = time.monotonic()
    documents = {}
    for engine in args.engines:
        documents[engine] = probe(args, engine)
        print("\n".join(report(engine, documents[engine])) + "\n", flush=True)
    if len(documents) == 2:
        print("\n".join(compared(documents["embedded"], documents["postgres"])), flush=True)
    print(f"\n{args.set.name}, done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
