"""Moving parts of the benchmarks: a loopback web site, a `botyard serve` child process, a fresh database per run,
a latency probe and a sampler of the server's memory (its own and its children's)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import asyncpg  # type: ignore[import-untyped]
import httpx
from sqlalchemy.engine import make_url

from botyard.serving import listening_socket

BOTYARD = [sys.executable, "-m", "botyard"]


def held_port() -> socket.socket:
    """A loopback port that is this process's while the socket stays open: bound with SO_REUSEPORT, not listening.
    The kernel gives it to nobody that asks for a free port (a port found free and let go could be taken before the
    server bound it); a server's socket that binds it with SO_REUSEPORT too shares it (`botyard serve --workers`,
    `_bare_stream.py`, the socket `Server` hands to `botyard serve --fd`)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(("127.0.0.1", 0))
    except OSError:
        sock.close()
        raise
    return sock


def _wait_for_port(port: int, process: subprocess.Popen[bytes], what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{what} exited with code {process.returncode}") from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start within {seconds:.0f} s") from None
            time.sleep(0.05)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


_SITE = """
import functools, http.server, socket, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[2])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler, bind_and_activate=False)
server.socket.close()
server.socket = socket.socket(fileno=int(sys.argv[1]))  # the listening socket the parent bound
server.serve_forever()
"""
"""`python -m http.server`, on the listening socket inherited as the descriptor of argv[1]."""


@contextlib.contextmanager
def loopback_site(directory: Path) -> Iterator[str]:
    """Serve `directory` on 127.0.0.1 with the standard library's `http.server` (a ThreadingHTTPServer) in its
    own process, so that serving pages does not compete with the benchmark's clients for the GIL. Yields the base
    URL."""
    with socket.create_server(("127.0.0.1", 0), backlog=128) as sock:  # bound here: nothing can take the port first
        port = sock.getsockname()[1]
        command = [sys.executable, "-c", _SITE, str(sock.fileno()), str(directory)]
        quiet = subprocess.DEVNULL
        process = subprocess.Popen(command, stdout=quiet, stderr=quiet, pass_fds=[sock.fileno()])  # noqa: S603
    try:
        _wait_for_port(port, process, "the loopback site")
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(process)


class Database(Protocol):
    """A database a run owns: the environment that points the service at it, and read access for counting."""

    env: dict[str, str]

    def query(self, sql: str) -> list[tuple[Any, ...]]: ...


@dataclass
class SqliteDatabase:
    data_dir: Path
    env: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.env = {}  # the service's default: a SQLite file in BOTYARD_DATA_DIR

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        # WAL mode: a reader neither blocks nor is blocked by the service's writers.
        with contextlib.closing(sqlite3.connect(self.data_dir / "botyard.sqlite3", timeout=30)) as connection:
            return list(connection.execute(sql).fetchall())


@dataclass
class PostgresDatabase:
    url: str
    env: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.env = {"BOTYARD_DATABASE_URL": self.url}

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        async def fetch() -> list[tuple[Any, ...]]:
            connection = await asyncpg.connect(self.url)
            try:
                return [tuple(row) for row in await connection.fetch(sql)]
            finally:
                await connection.close()

        return asyncio.run(fetch())


@contextlib.contextmanager
def postgres_database(admin_url: str, prefix: str = "botyard_bench") -> Iterator[PostgresDatabase]:
    """A new, empty database on the server of `admin_url` (named `prefix_<random>`), dropped afterwards."""
    name = f"{prefix}_{secrets.token_hex(4)}"

    async def execute(statement: str) -> None:
        connection = await asyncpg.connect(admin_url)
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    asyncio.run(execute(f'CREATE DATABASE "{name}"'))
    try:
        yield PostgresDatabase(make_url(admin_url).set(database=name).render_as_string(hide_password=False))
    finally:
        asyncio.run(execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def as_utc(value: object) -> datetime:
    """A timestamp column as read back: SQLite gives naive UTC text, asyncpg a naive UTC datetime."""
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


class Server:
    """`botyard serve` as a child process on a free port, configured only through `BOTYARD_*` variables."""

    name = "botyard serve"

    def __init__(self, data_dir: Path, settings: dict[str, str], workers: int = 1) -> None:
        self.workers = workers
        self.env = {name: value for name, value in os.environ.items() if not name.startswith("BOTYARD_")}
        self.env |= {"BOTYARD_DATA_DIR": str(data_dir), "BOTYARD_EGRESS_ALLOWLIST": "127.0.0.1"} | settings
        held = held_port()
        weakref.finalize(self, held.close)
        self.port: int = held.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = data_dir / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def create_key(self, email: str = "bench@example.com") -> str:
        command = [*BOTYARD, "key", "create", "--email", email]
        created = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=120, check=True)  # noqa: S603
        return created.stdout.strip()

    def own_socket(self) -> socket.socket | None:
        """The socket the next process serves on, made here on the held port (one process: `--fd`), or None when
        it binds the port itself (`--workers`: the supervisor and each worker, with SO_REUSEPORT)."""
        return listening_socket("127.0.0.1", self.port, listen=False) if self.workers == 1 else None

    def command(self, fd: int | None) -> list[str]:
        listen = ["--port", str(self.port)] if fd is None else ["--fd", str(fd)]
        return [*BOTYARD, "serve", *listen, "--workers", str(self.workers)]

    @contextlib.contextmanager
    def running(self) -> Iterator[Server]:
        with self.log_path.open("wb") as log:
            own = self.own_socket()
            fds = [] if own is None else [own.fileno()]
            try:
                command = self.command(fds[0] if fds else None)
                output = {"stdout": log, "stderr": subprocess.STDOUT}
                self.process = subprocess.Popen(command, env=self.env, pass_fds=fds, **output)  # noqa: S603
            finally:
                if own is not None:
                    own.close()  # the server's alone now: it goes with the server
            try:
                _wait_for_port(self.port, self.process, f"{self.name} (log: {self.log_path})")
                yield self
            finally:
                _stop(self.process)

    def service_pids(self) -> list[int]:
        """The processes that serve requests and run jobs: this one, or with several workers its children."""
        if self.workers == 1:
            return [self.pid]
        return [self.pid, *(int(pid) for pid in Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split())]

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def _status_kb(pid: int) -> dict[str, int]:
    """The memory lines of /proc/<pid>/status (VmRSS, VmHWM...) in kB; empty once the process is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return {}
    values = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name.startswith("Vm") and rest.strip().endswith("kB"):
            values[name] = int(rest.split()[0])
    return values


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (children, grandchildren...), from /proc/<pid>/task/<tid>/children."""
    found: list[int] = []
    pending = [pid]
    while pending:
        parent = pending.pop()
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            for task in Path(f"/proc/{parent}/task").iterdir():
                with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                    children = [int(child) for child in (task / "children").read_text().split()]
                    found += children
                    pending += children
    return found


@dataclass
class MemoryPeaks:
    server_hwm_kb: int = 0
    """The server process's own peak resident set (VmHWM), exact."""
    child_hwm_kb: int = 0
    """The largest VmHWM of any descendant (the parser zygote, its supervisors and parser children), sampled."""
    tree_rss_kb: int = 0
    """The largest sum of VmRSS over the server and its descendants at one sample (shared pages count twice)."""
    tree_rss_end_kb: int = 0
    """That sum at the last sample: what the tree holds once a phase's transient peaks (an index build) are over."""
    children_seen: int = 0


def resident_kb(pid: int) -> int:
    """The process's resident set now (VmRSS), in kB."""
    return _status_kb(pid).get("VmRSS", 0)


def reset_peak(pid: int) -> None:
    """Reset the process's peak resident set (VmHWM) to its current one (Linux; a process of the same user), so that
    a phase's peak is measured apart from start-up's."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


class MemorySampler:
    """Samples the memory of a process tree every `interval` seconds on a thread, until stopped."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid = pid
        self.interval = interval
        self.peaks = MemoryPeaks()
        self._seen: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="memory-sampler", daemon=True)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()  # the last word on the long-lived processes' high-water marks

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def _sample(self) -> None:
        own = _status_kb(self.pid)
        total = own.get("VmRSS", 0)
        self.peaks.server_hwm_kb = max(self.peaks.server_hwm_kb, own.get("VmHWM", 0))
        for child in descendants(self.pid):
            status = _status_kb(child)
            self._seen.add(child)
            total += status.get("VmRSS", 0)
            self.peaks.child_hwm_kb = max(self.peaks.child_hwm_kb, status.get("VmHWM", 0))
        self.peaks.tree_rss_kb = max(self.peaks.tree_rss_kb, total)
        self.peaks.tree_rss_end_kb = total
        self.peaks.children_seen = len(self._seen)


class LatencyProbe:
    """A client that GETs one URL again and again on a thread (pausing `pause` seconds between requests) and
    records each latency in milliseconds; a failed request counts as an error."""

    def __init__(self, url: str, headers: dict[str, str], pause: float = 0.05) -> None:
        self.url = url
        self.headers = headers
        self.pause = pause
        self.latencies_ms: list[float] = []
        self.errors = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="latency-probe", daemon=True)

    def __enter__(self) -> LatencyProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        with httpx.Client(headers=self.headers, timeout=30) as client:
            while not self._stop.is_set():
                self.latencies_ms.append(timed_get(client, self.url) or math.nan)
                self._stop.wait(self.pause)
        self.errors = sum(1 for value in self.latencies_ms if math.isnan(value))
        self.latencies_ms = [value for value in self.latencies_ms if not math.isnan(value)]


def timed_get(client: httpx.Client, url: str) -> float | None:
    """The milliseconds a successful GET took, or None if it failed."""
    started = time.perf_counter()
    try:
        response = client.get(url)
    except httpx.HTTPError:
        return None
    elapsed = (time.perf_counter() - started) * 1000
    return elapsed if response.status_code == 200 else None


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (`fraction` in 0..1); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far (its own, not its children's); 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime and stime, fields 14 and 15


@dataclass(frozen=True)
class MachineCpu:
    """A reading of /proc/stat's first line: time the CPUs were busy and in total, in clock ticks."""

    busy: int
    total: int

    @classmethod
    def read(cls) -> MachineCpu:
        ticks = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = ticks[3] + ticks[4]  # idle and iowait
        return cls(sum(ticks) - idle, sum(ticks))

    def busy_share_since(self, earlier: MachineCpu) -> float:
        elapsed = self.total - earlier.total
        return (self.busy - earlier.busy) / elapsed if elapsed else 0.0


def load_average() -> float:
    """The one-minute load average: how many processes wanted a CPU, on a machine others may share."""
    return os.getloadavg()[0]
