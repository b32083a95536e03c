"""The service as a real process: `botyard serve` on a free loopback port, and the processes it spawns."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx2 as httpx

from botyard.config import Settings
from tests.support.processes import GRACE, REAP, spawn, stop
from tests.support.waiting import START, wait_for


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


LEASE_SECONDS = 2.0


class Server:
    """`botyard serve` as a child process on a free port, with a short job lease."""

    def __init__(self, settings: Settings) -> None:
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("BOTYARD_")}
        self.env |= {
            "BOTYARD_DATA_DIR": str(settings.data_dir),
            "BOTYARD_EGRESS_ALLOWLIST": "127.0.0.1",
            "BOTYARD_JOB_LEASE_SECONDS": str(LEASE_SECONDS),
            # Keyword search only: the embedding stage writes through the same fenced transaction as the others, and
            # the bundled model on ~180 chunks after each of 22 starts would make this test time the CPU instead.
            "BOTYARD_EMBEDDER": "none",
        }
        if settings.database_url:
            self.env["BOTYARD_DATABASE_URL"] = settings.database_url
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def key(self) -> str:
        command = [sys.executable, "-m", "botyard", "key", "create", "--email", "crash@example.com"]
        created = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=START, check=True)
        return created.stdout.strip()

    def start(self, *arguments: str, wait: bool = True, stderr: IO[bytes] | int = subprocess.DEVNULL) -> None:
        """`botyard serve` on the port, with more `arguments` (`--workers 2`), in a process group of its own."""
        command = [sys.executable, "-m", "botyard", "serve", "--port", str(self.port), *arguments]
        self.process = spawn(command, env=self.env, stdout=subprocess.DEVNULL, stderr=stderr)
        if wait:
            try:
                self.wait_ready()
            except BaseException:
                stop(self.process)  # no test would: it has no server to stop yet
                raise

    def wait_ready(self, seconds: float = START) -> None:
        """Until /healthz answers: a cold start migrates the database and loads the models, slowly on a busy
        machine; a server that exits meanwhile fails the test at once."""

        def healthy() -> bool:
            assert self.process is not None and self.process.poll() is None, "the server exited"
            try:
                return httpx.get(f"{self.base}/healthz", timeout=10).status_code == 200
            except httpx.TransportError:
                return False

        wait_for(healthy, seconds, what="the server answering /healthz")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=REAP)

    def stop(self) -> None:
        """Stop it as an operator would (SIGTERM). The shutdown may have in-flight jobs to end, and a machine busy
        with a parallel test suite makes that slow: a minute is allowed; a server still up after it is killed with
        the processes it started, and the test fails."""
        if self.process is not None:
            assert stop(self.process, signal.SIGTERM, GRACE), f"the server did not stop within {GRACE:g} s of SIGTERM"


@contextmanager
def running(server: Server) -> Iterator[Server]:
    server.start()
    try:
        yield server
    finally:
        server.stop()


def children(pid: int) -> list[int]:
    """Process ids whose parent is `pid` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found
