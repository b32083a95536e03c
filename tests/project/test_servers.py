"""The suite's own `botyard serve` helper (tests/support/servers.py): the port of a `Server` is held from its making
to its end, restarts included, so no other process of the parallel suite (nor an outbound connection) can take it
before the server binds it; and a server that exits during its start says why in the failure.

A fresh-clone CI run once failed with a bare "the server exited" at start: the port had been found free, let go, and
was taken by someone else before `botyard serve` bound it, and its stderr had gone to /dev/null."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx2 as httpx
import pytest

from botyard.config import Settings
from tests.support.servers import Server, refusing_port


def squat(port: int, *options: int) -> None:
    """Bind `port` on loopback as another program would (with these SO_ options), and let it go again."""
    with socket.socket() as other:
        for option in options:
            other.setsockopt(socket.SOL_SOCKET, option, 1)
        other.bind(("127.0.0.1", port))


def assert_held(port: int) -> None:
    # A plain bind, and SO_REUSEADDR's (http.server, aiosmtpd, asyncio's servers), are both refused.
    for options in ((), (socket.SO_REUSEADDR,)):
        with pytest.raises(OSError, match="Address already in use"):
            squat(port, *options)


def test_the_port_is_held_before_the_start_between_starts_and_refuses_while_down(tmp_path: Path) -> None:
    server = Server(Settings(data_dir=tmp_path / "data"))
    assert_held(server.port)  # found free and let go, this bind used to succeed: the server then could not
    server.start()
    try:
        assert httpx.get(f"{server.base}/healthz", timeout=30).status_code == 200
    finally:
        server.stop()
    assert_held(server.port)
    with pytest.raises(httpx.ConnectError):  # nothing answers a held port while no server runs
        httpx.get(f"{server.base}/healthz", timeout=10)
    server.start("--workers", "2")  # the supervisor and its workers bind it beside the held socket
    try:
        assert httpx.get(f"{server.base}/healthz", timeout=30).status_code == 200
    finally:
        server.stop()


def test_a_server_that_exits_during_its_start_shows_its_last_output(tmp_path: Path) -> None:
    server = Server(Settings(data_dir=tmp_path / "data"))
    server.env["BOTYARD_LOG_FORMAT"] = "xml"  # refused by the settings: `botyard serve` exits at once
    with pytest.raises(AssertionError) as failure:
        server.start()
    message = str(failure.value)
    assert "the server exited with status 1" in message
    assert "log_format" in message and "'text' or 'json'" in message  # the settings' own words, from its stderr


def test_a_caller_s_stderr_file_is_the_one_shown(tmp_path: Path) -> None:
    server = Server(Settings(data_dir=tmp_path / "data"))
    server.env["BOTYARD_LOG_FORMAT"] = "xml"
    stderr = tmp_path / "stderr.log"
    with stderr.open("wb") as sink, pytest.raises(AssertionError) as failure:
        server.start(stderr=sink)
    assert str(stderr) in str(failure.value) and "log_format" in str(failure.value)
    assert "log_format" in stderr.read_text()  # and the caller still has all of it


def test_a_refusing_port_refuses() -> None:
    with refusing_port() as port:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
        with pytest.raises(OSError, match="Address already in use"):
            squat(port, socket.SO_REUSEADDR)
