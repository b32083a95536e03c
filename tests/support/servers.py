"""The service as a real process: `botyard serve` on a loopback port this process holds, and the processes it spawns.

A port is held, never probed: a port found free and let go (the `free_port()` this replaced) could be taken by
another process of the parallel suite, or by an outbound connection, before the server bound it, and the server
exited at start. `held_port` keeps a socket bound to the port for the whole life of a `Server`, restarts included;
each `botyard serve` is handed a socket of its own on that port (`--fd`), or binds it beside the held one (`--workers`
bind with SO_REUSEPORT). What the server writes to stderr goes to a file, and its last lines are in the failure when
it exits during its start.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx2 as httpx

from botyard.config import Settings
from botyard.serving import listening_socket
from tests.support.processes import GRACE, REAP, last_lines, spawn, stop
from tests.support.waiting import START, wait_for


def held_port() -> socket.socket:
    """A loopback port that is this process's while the socket stays open: bound with SO_REUSEPORT, not listening.

    The kernel gives the port to nobody that asks for a free one (nor to an outbound connection), a connection to it
    is refused while nothing else listens there, and a socket of this user that binds it with SO_REUSEPORT too (one
    made for `--fd`, or `botyard serve --workers`' own) shares it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(("127.0.0.1", 0))
    except OSError:
        sock.close()
        raise
    return sock


@contextmanager
def refusing_port() -> Iterator[int]:
    """A loopback port where nothing listens, nor can until the block ends: every connection to it is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))  # bound and not listening: the kernel answers a SYN with a reset
        yield sock.getsockname()[1]


LEASE_SECONDS = 2.0


class Server:
    """`botyard serve` as a child process on a port held for it (`held_port`), with a short job lease."""

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
        held = held_port()
        weakref.finalize(self, held.close)
        self.port: int = held.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.output: Path | None = None
        """The file the running server's stderr goes to (the caller's, or one of this object's own)."""
        self._output_from = 0  # where this start's lines begin in `output`
        self._own_output: Path | None = None

    def key(self) -> str:
        command = [sys.executable, "-m", "botyard", "key", "create", "--email", "crash@example.com"]
        created = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=START, check=True)
        return created.stdout.strip()

    def start(self, *arguments: str, wait: bool = True, stderr: IO[bytes] | int | None = None) -> None:
        """`botyard serve` on the port, with more `arguments` (`--workers 2`), in a process group of its own. Its
        stderr goes to `stderr` (a file opened for writing, an int as `Popen` takes it) or, by default, to a file of
        this object's own; a file's last lines are shown when the server exits during its start."""
        opened = self._own_stderr() if stderr is None else None
        sink = opened if opened is not None else stderr
        assert sink is not None
        self._follow(sink)
        if _workers(arguments) > 1:
            # The supervisor and each worker bind the port with SO_REUSEPORT, as the held socket is: they share it.
            own, listen = None, ["--port", str(self.port)]
        else:
            own = listening_socket("127.0.0.1", self.port, listen=False)  # the server's alone: it goes with it
            listen = ["--fd", str(own.fileno())]
        command = [sys.executable, "-m", "botyard", "serve", *listen, *arguments]
        try:
            passed = () if own is None else (own.fileno(),)
            self.process = spawn(command, env=self.env, stdout=subprocess.DEVNULL, stderr=sink, pass_fds=passed)
        finally:
            if own is not None:
                own.close()
            if opened is not None:
                opened.close()
        if wait:
            try:
                self.wait_ready()
            except BaseException:
                stop(self.process)  # no test would: it has no server to stop yet
                raise

    def _own_stderr(self) -> IO[bytes]:
        """This object's own file for the server's stderr, made at the first start and kept across restarts."""
        if self._own_output is None:
            descriptor, name = tempfile.mkstemp(prefix="botyard-serve-", suffix=".log")
            os.close(descriptor)
            self._own_output = Path(name)
            weakref.finalize(self, self._own_output.unlink, missing_ok=True)
        return self._own_output.open("ab")

    def _follow(self, sink: IO[bytes] | int) -> None:
        """Point `output` at the file `sink` writes to (None when it is not a named file), from its current end."""
        name = getattr(sink, "name", None)
        self.output = Path(name) if isinstance(name, str) else None
        self._output_from = self.output.stat().st_size if self.output is not None else 0

    def last_output(self) -> str:
        """What the server wrote to stderr since it was started, its last lines, to put in a failure."""
        if self.output is None:
            return "its stderr went to no file"
        tail = last_lines(self.output, since=self._output_from)
        return f"its last output ({self.output}):\n{tail}" if tail else f"it wrote nothing to {self.output}"

    def wait_ready(self, seconds: float = START) -> None:
        """Until /healthz answers: a cold start migrates the database and loads the models, slowly on a busy
        machine; a server that exits meanwhile fails the test at once, with its last lines."""

        def healthy() -> bool:
            assert self.process is not None
            assert self.process.poll() is None, f"the server exited with status {self.process.returncode}"
            try:
                return httpx.get(f"{self.base}/healthz", timeout=10).status_code == 200
            except httpx.TransportError:
                return False

        try:
            wait_for(healthy, seconds, what="the server answering /healthz")
        except AssertionError as failure:
            raise AssertionError(f"{failure}; {self.last_output()}") from None

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=REAP)

    def stop(self) -> None:
        """Stop it as an operator would (SIGTERM). The shutdown may have in-flight jobs to end, and a machine busy
        with a parallel test suite makes that slow: a minute is allowed; a server still up after it is killed with
        the processes it started, and the test fails."""
        if self.process is not None:
            stopped = stop(self.process, signal.SIGTERM, GRACE)
            assert stopped, f"the server did not stop within {GRACE:g} s of SIGTERM; {self.last_output()}"


def _workers(arguments: Sequence[str]) -> int:
    """The `--workers` among `botyard serve` arguments (1 when not given)."""
    for index, argument in enumerate(arguments):
        if argument == "--workers" and index + 1 < len(arguments):
            return int(arguments[index + 1])
        if argument.startswith("--workers="):
            return int(argument.split("=", 1)[1])
    return 1


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
