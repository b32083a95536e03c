"""`botyard serve --workers N`: a listening socket per worker on the one port, dead workers replaced, a clean stop,
and a clear error for a port in use; `botyard serve --fd N` on a socket its parent bound, and clear errors for a
descriptor that is not one. Real processes on loopback, SQLite."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from botyard.config import Settings
from botyard.serving import listening_socket
from tests.support.processes import spawn, stop, written_lines
from tests.support.servers import Server, children
from tests.support.waiting import START, wait_for


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Server]:
    server = Server(Settings(data_dir=tmp_path))
    server.env |= {"BOTYARD_EMBEDDER": "none"}
    server.start("--workers", "2", wait=False)
    try:
        server.wait_ready()
        wait_for(lambda: len(listeners(server)) == 2, what="two workers listening")
        yield server
    finally:
        server.stop()


def listeners(server: Server) -> dict[int, int]:
    """Worker pid -> the inode of the socket it listens on at the server's port (from /proc)."""
    assert server.process is not None
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == server.port:  # 0A: LISTEN
                listening.add(int(fields[9]))
    found = {}
    for pid in children(server.process.pid):
        try:
            descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
        except FileNotFoundError:  # the worker exited since it was listed (the replacement test kills one)
            continue
        for fd in descriptors:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and int(target[8:-1]) in listening:
                found[pid] = int(target[8:-1])
    return found


def test_each_worker_listens_on_its_own_socket(workers: Server) -> None:
    sockets = listeners(workers)
    assert len(sockets) == 2 and len(set(sockets.values())) == 2  # the kernel spreads connections over both
    for _ in range(10):
        with httpx.Client() as client:  # a new connection each time
            assert client.get(f"{workers.base}/healthz").status_code == 200


def test_a_dead_worker_is_replaced(workers: Server) -> None:
    [victim, survivor] = sorted(listeners(workers))
    os.kill(victim, signal.SIGKILL)
    wait_for(lambda: len(listeners(workers)) == 2 and victim not in listeners(workers))
    assert survivor in listeners(workers)
    assert httpx.get(f"{workers.base}/healthz").status_code == 200


def test_stopping_the_supervisor_stops_every_worker(workers: Server) -> None:
    pids = list(listeners(workers))
    assert workers.process is not None
    workers.process.send_signal(signal.SIGTERM)
    assert workers.process.wait(timeout=30) == 0
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_workers_die_with_a_killed_supervisor(workers: Server) -> None:
    pids = list(listeners(workers))
    assert workers.process is not None and len(pids) == 2
    workers.process.kill()  # SIGKILL: the supervisor stops nobody
    workers.process.wait(timeout=10)
    # The workers used to go on serving the port (and running jobs) as orphans.
    wait_for(lambda: all(not Path(f"/proc/{pid}").exists() or "zombie" in _status(pid) for pid in pids), seconds=40)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{workers.base}/healthz", timeout=5)


def _status(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return "zombie"  # gone between the two reads


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = Server(Settings(data_dir=tmp_path))
        command = [sys.executable, "-m", "botyard", "serve", "--workers", "2", "--port", str(port)]
        result = subprocess.run(command, env=server.env, capture_output=True, text=True, timeout=START)
    assert result.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr


def test_accepted_connections_send_without_delay() -> None:
    """Each worker's connections have TCP_NODELAY (asyncio sets it only on sockets made with IPPROTO_TCP): without
    it a response's head and body, written apart, waited for the client's delayed ACK, about 40 ms per answer."""

    async def accepted_nodelay() -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        with listening_socket("127.0.0.1", 0) as sock:
            server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
            async with server:
                _, writer = await asyncio.open_connection(*sock.getsockname())
                try:
                    return await asyncio.wait_for(accepted, 10)
                finally:
                    writer.close()

    assert asyncio.run(accepted_nodelay()) != 0


def test_serve_on_a_socket_its_parent_bound(tmp_path: Path) -> None:
    """systemd's socket activation, or a test that holds its port: the parent binds (and here already listens), the
    server serves on what it inherited, says where, and the socket goes with it."""
    server = Server(Settings(data_dir=tmp_path))  # for its environment
    stderr = tmp_path / "stderr.log"
    with socket.create_server(("127.0.0.1", 0)) as inherited, stderr.open("wb") as sink:
        port = inherited.getsockname()[1]
        command = [sys.executable, "-m", "botyard", "serve", "--fd", str(inherited.fileno())]
        process = spawn(command, env=server.env, stdout=subprocess.DEVNULL, stderr=sink, pass_fds=[inherited.fileno()])
    try:
        wait_for(lambda: _healthy(port, process), START, what="the server answering on the inherited socket")
        lines = written_lines(stderr)
        assert any(f"http://127.0.0.1:{port}/dashboard#setup=" in line for line in lines)  # its address, not 8000
        assert any(f"serving on http://127.0.0.1:{port}" in line for line in lines)
    finally:
        assert stop(process, signal.SIGTERM), "the server did not stop on SIGTERM"
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10)


def _healthy(port: int, process: subprocess.Popen[bytes]) -> bool:
    assert process.poll() is None, f"the server exited with status {process.returncode}"
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
    except httpx.TransportError:
        return False


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("a file", "is not the file descriptor of a socket"),
        ("a closed descriptor", "is not the file descriptor of a socket"),
        ("a UDP socket", "is not a TCP socket"),
        ("an unbound socket", "is not bound to a port: bind it first"),
        ("with --workers 2", "--fd serves one process"),
    ],
)
def test_a_descriptor_that_cannot_be_served_on_is_a_clear_error(tmp_path: Path, given: str, said: str) -> None:
    server = Server(Settings(data_dir=tmp_path))
    with contextlib.ExitStack() as stack:
        if given == "a file":
            fd = stack.enter_context((tmp_path / "not-a-socket").open("wb")).fileno()
        elif given == "a UDP socket":
            fd = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_DGRAM)).fileno()
        elif given == "an unbound socket":
            fd = stack.enter_context(socket.socket()).fileno()
        elif given == "with --workers 2":
            fd = stack.enter_context(socket.create_server(("127.0.0.1", 0))).fileno()
        else:
            fd = 97  # nothing open there
        more = ["--workers", "2"] if given == "with --workers 2" else []
        command = [sys.executable, "-m", "botyard", "serve", "--fd", str(fd), *more]
        passed = [] if fd == 97 else [fd]
        result = subprocess.run(command, env=server.env, capture_output=True, text=True, timeout=START, pass_fds=passed)
    assert result.returncode == 2 and said in result.stderr, result.stderr  # a usage error, before any migration
    assert not (tmp_path / "botyard.sqlite3").exists()
