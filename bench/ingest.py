"""Ingestion benchmark: how fast `botyard serve` turns web pages and PDFs into chunks, and how its API answers
meanwhile.

What one run measures (a fresh database and a fresh server process per run):

- Workload `html`: `--pages` generated HTML articles (600-1000 words each) served by a loopback web site are added
  as URL sources by `--submitters` clients at once (4 by default). Workload `pdf`: `--pdfs` generated multi-page
  PDFs are uploaded the same way.
- Elapsed time, end to end: from the first POST until the last source reached `success` (or `error:...`), taken
  from the largest `data_source.modified_at` once every source is done. It includes the submissions, fetching,
  parsing in the sandbox, chunking, token counting and storing (and embedding, when an embedder is on).
- Pages per second (an HTML page is one page; a PDF counts its pages) and chunks per second (rows of `chunk`).
- The API's latency while ingestion runs: a thread GETs `/api/v1/chatbots` (authenticated, cheap) every 50 ms
  from the first POST to the end; p50, p95, p99 and max in milliseconds. The POSTs' own p99 and the probe's p99 on
  the idle server (before the run) are shown too.
- Peak memory: the server process's own VmHWM (/proc/<pid>/status), the largest VmHWM of its descendants (the
  parser sandbox: a zygote and the processes it forks per file; sampled every 50 ms) and the largest sum of
  resident sets over the whole process tree at one sample.

Each workload runs on SQLite and PostgreSQL. If the service has an `embedder` setting, each also runs with
`BOTYARD_EMBEDDER=none` (the "embeddings off" figure the targets refer to) and with the default embedder.
Targets on a 2-core machine, embeddings off: at least 50 HTML pages per second, and the API's p99 under 200 ms.

Run from the repository root, in its virtualenv:

    python bench/ingest.py                                  # 1,000 pages and 200 PDFs, both backends
    python bench/ingest.py --pages 200 --pdfs 40 --backend sqlite
    python bench/ingest.py --backend postgres --postgres-url postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import httpx
from _content import PdfDocument, pdf_document, write_site
from _harness import (
    Database,
    LatencyProbe,
    MachineCpu,
    MemoryPeaks,
    MemorySampler,
    Server,
    SqliteDatabase,
    as_utc,
    load_average,
    loopback_site,
    percentile,
    postgres_database,
    process_cpu_seconds,
    timed_get,
)

from botyard.config import Settings

TARGET_PAGES_PER_SECOND = 50.0
TARGET_P99_MS = 200.0
DONE_SQL = "SELECT count(*) FROM data_source WHERE status = 'success' OR status LIKE 'error%'"
LAST_CHANGE_SQL = "SELECT max(modified_at) FROM data_source"
PROBE_PATH = "/api/v1/chatbots"
NO_SETTING = "(no setting)"
OFF_LABELS = ("none", NO_SETTING)


@dataclass(frozen=True)
class Material:
    """What the runs ingest, made once: the site's page URLs and the PDFs."""

    page_urls: list[str]
    pdfs: list[PdfDocument]


@dataclass(frozen=True)
class Variant:
    backend: str
    workload: str
    embedder: str
    settings: dict[str, str]
    documents: int
    """The first this many pages or PDFs of the material."""
    submitters: int
    """Clients that submit the documents at once."""
    server_workers: int
    """`botyard serve --workers`: each worker process serves requests and runs jobs."""


@dataclass
class Outcome:
    variant: Variant
    documents: int
    succeeded: int = 0
    failed: int = 0
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0
    submit_seconds: float = 0.0
    timed_out: bool = False
    probe_ms: list[float] = field(default_factory=list)
    probe_errors: int = 0
    idle_ms: list[float] = field(default_factory=list)
    submit_ms: list[float] = field(default_factory=list)
    memory: MemoryPeaks = field(default_factory=MemoryPeaks)
    errors: dict[str, int] = field(default_factory=dict)
    server_cpu_seconds: float = 0.0
    machine_busy: float = 0.0
    """Share of the machine's CPU time that was busy during the run (the service, this script and anyone else)."""
    load_at_start: float = 0.0

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds if self.seconds else 0.0

    @property
    def chunks_per_second(self) -> float:
        return self.chunks / self.seconds if self.seconds else 0.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- Material -------------------------------------------------------------------------------------------------


def make_pdfs(count: int, seed: int) -> list[PdfDocument]:
    """Generate the PDFs on every core (fpdf2 takes tens of milliseconds a document)."""
    with ProcessPoolExecutor() as pool:
        return list(pool.map(partial(pdf_document, seed=seed), range(count), chunksize=8))


# --- One run --------------------------------------------------------------------------------------------------


def embedder_variants(include_default: bool) -> list[tuple[str, dict[str, str]]]:
    """(label, settings) per embedder configuration to run; the setting may not exist in this version."""
    spec = Settings.model_fields.get("embedder")
    if spec is None:
        return [(NO_SETTING, {})]
    variants = [("none", {"BOTYARD_EMBEDDER": "none"})]
    if include_default and str(spec.default) != "none":
        variants.append((f"{spec.default} (default)", {}))
    return variants


def submit_pages(client: httpx.Client, bot: str, material: Material, count: int) -> list[Submission]:
    """Requests that add the first `count` pages as URL sources, each with its page count."""
    url = f"/api/v1/chatbot/{bot}/data-source/url"
    return [Submission(partial(client.post, url, json={"url": page}), 1) for page in material.page_urls[:count]]


def submit_pdfs(client: httpx.Client, bot: str, material: Material, count: int) -> list[Submission]:
    """Requests that upload the first `count` PDFs, each with its page count."""
    url = f"/api/v1/chatbot/{bot}/data-source/upload"
    return [
        Submission(partial(client.post, url, files={"file": (pdf.name, pdf.content, "application/pdf")}), pdf.pages)
        for pdf in material.pdfs[:count]
    ]


@dataclass(frozen=True)
class Submission:
    send: Callable[[], httpx.Response]
    pages: int


SUBMITTERS: dict[str, Callable[[httpx.Client, str, Material, int], list[Submission]]] = {
    "html": submit_pages,
    "pdf": submit_pdfs,
}


def submit_all(submissions: list[Submission], clients: int, submit_ms: list[float]) -> dict[str, int]:
    """Send the submissions from `clients` threads at once (a team adding a site's pages, or a script with a pool);
    the source uuid -> pages of each created source. Each request's latency goes to `submit_ms`."""

    def send(submission: Submission) -> tuple[str, int]:
        started = time.perf_counter()
        response = submission.send().raise_for_status()
        submit_ms.append((time.perf_counter() - started) * 1000)
        return str(response.json()["uuid"]), submission.pages

    with ThreadPoolExecutor(clients) as pool:
        return dict(pool.map(send, submissions))


def wait_until_done(database: Database, total: int, timeout: float) -> bool:
    """Poll the database (not the API, to leave it to the probe) until `total` sources are done; False on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if database.query(DONE_SQL)[0][0] >= total:
            return True
        time.sleep(0.25)
    return False


def idle_latencies(client: httpx.Client, url: str, count: int = 50) -> list[float]:
    for _ in range(5):  # warm up connections and caches
        timed_get(client, url)
    return [value for value in (timed_get(client, url) for _ in range(count)) if value is not None]


def run(variant: Variant, database: Database, data_dir: Path, material: Material, timeout: float) -> Outcome:
    """One measured run on a new server over `database`."""
    server = Server(data_dir, database.env | variant.settings, variant.server_workers)
    headers = {"Authorization": f"Bearer {server.create_key()}"}
    outcome = Outcome(variant, variant.documents)
    with server.running(), httpx.Client(base_url=server.base, headers=headers, timeout=60) as client:
        bot = client.post("/api/v1/chatbot/create", json={"name": "bench"}).raise_for_status().json()["uuid"]
        outcome.idle_ms = idle_latencies(client, PROBE_PATH)
        created = measure(outcome, server, client, headers, bot, material, database, timeout)
        record_sources(outcome, client.get(f"/api/v1/chatbot/{bot}/data-sources").raise_for_status().json(), created)
        if outcome.failed == outcome.documents:
            log(f"every source failed; the server's log ends with:\n{server.log_tail()}")
    outcome.chunks = int(database.query("SELECT count(*) FROM chunk")[0][0])
    return outcome


def measure(
    outcome: Outcome,
    server: Server,
    client: httpx.Client,
    headers: dict[str, str],
    bot: str,
    material: Material,
    database: Database,
    timeout: float,
) -> dict[str, int]:
    """Submit the sources and wait until they are done, with the latency probe and the memory sampler running;
    fills in the outcome's timings, latencies, CPU and memory. The sources created: uuid -> pages."""
    submit = SUBMITTERS[outcome.variant.workload]
    outcome.load_at_start = load_average()
    service = server.service_pids()
    cpu_before, machine_before = sum(map(process_cpu_seconds, service)), MachineCpu.read()
    with MemorySampler(server.pid) as memory, LatencyProbe(server.base + PROBE_PATH, headers) as probe:
        started = datetime.now(UTC)
        submissions = submit(client, bot, material, outcome.variant.documents)
        created = submit_all(submissions, outcome.variant.submitters, outcome.submit_ms)
        outcome.submit_seconds = (datetime.now(UTC) - started).total_seconds()
        outcome.timed_out = not wait_until_done(database, len(created), timeout)
    outcome.server_cpu_seconds = sum(map(process_cpu_seconds, service)) - cpu_before
    outcome.machine_busy = MachineCpu.read().busy_share_since(machine_before)
    finished = datetime.now(UTC) if outcome.timed_out else as_utc(database.query(LAST_CHANGE_SQL)[0][0])
    outcome.seconds = (finished - started).total_seconds()
    outcome.probe_ms, outcome.probe_errors, outcome.memory = probe.latencies_ms, probe.errors, memory.peaks
    return created


def record_sources(outcome: Outcome, sources: list[dict[str, object]], pages: dict[str, int]) -> None:
    """Count successes, failures (by reason) and the pages of the sources that succeeded, from the API's list."""
    for source in sources:
        status = str(source["status"])
        if status == "success":
            outcome.succeeded += 1
            outcome.pages += pages.get(str(source["uuid"]), 0)
        else:
            outcome.failed += 1
            outcome.errors[status] = outcome.errors.get(status, 0) + 1


@contextlib.contextmanager
def fresh_database(backend: str, postgres_url: str) -> Iterator[tuple[Database, Path]]:
    """An empty database for one run, and a data directory for the server (the SQLite file lives there)."""
    with tempfile.TemporaryDirectory(prefix="botyard-bench-") as directory:
        data_dir = Path(directory)
        if backend == "sqlite":
            yield SqliteDatabase(data_dir), data_dir
        else:
            with postgres_database(postgres_url) as database:
                yield database, data_dir


# --- Report ---------------------------------------------------------------------------------------------------


def _ms(values: Sequence[float], fraction: float) -> str:
    return f"{percentile(values, fraction):.1f}" if values else "-"


def _mb(kilobytes: int) -> str:
    return f"{kilobytes / 1024:.0f}"


def throughput_row(outcome: Outcome) -> list[str]:
    v = outcome.variant
    return [
        v.backend, v.workload, v.embedder, str(outcome.documents), str(outcome.succeeded), str(outcome.failed),
        str(outcome.pages), str(outcome.chunks), f"{outcome.seconds:.1f}" + (" (timeout)" if outcome.timed_out else ""),
        f"{outcome.submit_seconds:.1f}", f"{outcome.pages_per_second:.1f}", f"{outcome.chunks_per_second:.1f}",
        f"{outcome.server_cpu_seconds:.1f}", f"{outcome.machine_busy:.0%}", f"{outcome.load_at_start:.1f}",
    ]  # fmt: skip


def latency_row(outcome: Outcome) -> list[str]:
    v, probe, memory = outcome.variant, outcome.probe_ms, outcome.memory
    return [
        v.backend, v.workload, v.embedder, str(len(probe)), str(outcome.probe_errors),
        _ms(probe, 0.50), _ms(probe, 0.95), _ms(probe, 0.99), _ms(probe, 1.0),
        _ms(outcome.idle_ms, 0.99), _ms(outcome.submit_ms, 0.99),
        _mb(memory.server_hwm_kb), _mb(memory.child_hwm_kb), _mb(memory.tree_rss_kb),
    ]  # fmt: skip


def table(title: str, headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.rjust(width) if i > 2 else cell.ljust(width) for i, (cell, width) in enumerate(
            zip(cells, widths, strict=True)
        )).rstrip()  # fmt: skip

    rule = "-" * len(line(headers))
    return "\n".join([title, rule, line(headers), rule, *(line(row) for row in rows), rule])


def verdicts(outcomes: list[Outcome]) -> list[str]:
    """One line per run the targets apply to: HTML pages with embeddings off."""
    lines = []
    for outcome in outcomes:
        v = outcome.variant
        if v.workload != "html" or v.embedder not in OFF_LABELS:
            continue
        p99 = percentile(outcome.probe_ms, 0.99)
        fast = outcome.pages_per_second >= TARGET_PAGES_PER_SECOND and not outcome.timed_out
        responsive = p99 < TARGET_P99_MS
        lines.append(
            f"{v.backend:<8}  {outcome.pages_per_second:6.1f} pages/s (target >= {TARGET_PAGES_PER_SECOND:.0f}): "
            f"{'PASS' if fast else 'FAIL'};  API p99 {p99:.1f} ms (target < {TARGET_P99_MS:.0f}): "
            f"{'PASS' if responsive else 'FAIL'}"
        )
    return lines


def report(outcomes: list[Outcome]) -> str:
    throughput = table(
        "Throughput (elapsed: first POST to the last source done)",
        ["backend", "work", "embedder", "docs", "ok", "error", "pages", "chunks", "secs", "submit s", "pages/s",
         "chunks/s", "server CPU s", "CPU busy", "loadavg"],
        [throughput_row(outcome) for outcome in outcomes],
    )  # fmt: skip
    latency = table(
        "API latency during ingestion (GET /api/v1/chatbots, ms) and peak memory (MB)",
        ["backend", "work", "embedder", "probes", "fail", "p50", "p95", "p99", "max", "idle p99", "POST p99",
         "server HWM", "child HWM", "tree RSS"],
        [latency_row(outcome) for outcome in outcomes],
    )  # fmt: skip
    errors = [
        f"{o.variant.backend} {o.variant.workload} {o.variant.embedder}: {o.errors}" for o in outcomes if o.errors
    ]
    sections = [throughput, latency, "Targets (HTML, embeddings off)\n" + "\n".join(verdicts(outcomes))]
    if errors:
        sections.append("Failed sources by status\n" + "\n".join(errors))
    return "\n\n".join(sections)


# --- Command line ---------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=1000, help="HTML pages to ingest (0: skip)")
    parser.add_argument("--pdfs", type=int, default=200, help="PDFs to upload (0: skip)")
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="a server where the benchmark may create and drop a database")  # fmt: skip
    parser.add_argument("--workers", type=int, default=1, help="botyard serve --workers (each one also runs jobs)")
    parser.add_argument("--submitters", type=int, default=4, help="clients submitting the documents at once")
    parser.add_argument("--job-concurrency", type=int, help="BOTYARD_JOB_CONCURRENCY (default: the service's)")
    parser.add_argument("--embeddings-off-only", action="store_true", help="skip the runs with the default embedder")
    parser.add_argument("--embedder-share", type=float, default=0.1,
                        help="share of the documents the default-embedder runs ingest (it is slow)")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one run may take to finish")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated text")
    return parser.parse_args(argv)


def variants(args: argparse.Namespace) -> list[Variant]:
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    workloads = [(name, count) for name, count in (("html", args.pages), ("pdf", args.pdfs)) if count > 0]
    embedders = embedder_variants(not args.embeddings_off_only)
    common = {} if args.job_concurrency is None else {"BOTYARD_JOB_CONCURRENCY": str(args.job_concurrency)}
    share = {label: 1.0 if label in OFF_LABELS else args.embedder_share for label, _ in embedders}
    return [
        Variant(
            backend,
            workload,
            label,
            common | settings,
            max(1, round(count * share[label])),
            args.submitters,
            args.workers,
        )
        for backend in backends
        for label, settings in embedders
        for workload, count in workloads
    ]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    log(f"generating {args.pages} pages and {args.pdfs} PDFs...")
    pdfs = make_pdfs(args.pdfs, args.seed)
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="botyard-bench-site-") as site_dir:
        paths = write_site(Path(site_dir), args.pages, args.seed)
        with loopback_site(Path(site_dir)) as site:
            material = Material([site + path for path in paths], pdfs)
            for variant in variants(args):
                log(f"{variant.backend} / {variant.workload} / embedder {variant.embedder}...")
                with fresh_database(variant.backend, args.postgres_url) as (database, data_dir):
                    outcome = run(variant, database, data_dir, material, args.timeout)
                log(f"  {outcome.succeeded}/{outcome.documents} ok in {outcome.seconds:.1f} s")
                outcomes.append(outcome)
    print(report(outcomes))
    print(f"\n{len(outcomes)} runs in {time.monotonic() - started:.0f} s; {len(pdfs)} PDFs with "
          f"{sum(pdf.pages for pdf in pdfs)} pages; job concurrency {args.job_concurrency or 'default'}; "
          f"{args.submitters} submitting clients; {args.workers} server workers")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
