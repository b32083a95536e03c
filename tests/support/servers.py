"""The service as a real process: `botyard serve` on a free loopback port, and the processes it spawns."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx

from botyard.config import Settings


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
        created = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=60, check=True)
        return created.stdout.strip()

    def start(self, wait: bool = True) -> None:
        command = [sys.executable, "-m", "botyard", "serve", "--port", str(self.port)]
        self.process = subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if wait:
            self.wait_ready()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{self.base}/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                assert self.process is not None and self.process.poll() is None, "the server exited"
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop it as an operator would (SIGTERM). The shutdown may have in-flight jobs to end, and a machine busy
        with a parallel test suite makes that slow: a minute is allowed; a server still up after it is killed and the
        test fails."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
                raise


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
