"""Real loopback servers for the egress tests.

`Site` is a scripted HTTP server on 127.0.0.1 (the tests allowlist it): pages, echo, redirects, loops, a gzip bomb,
an endless body, a trickle, huge headers. `Canary` listens on 127.0.0.2 on the *same port* and only counts
connections: anything that escapes the policy (a literal encoding, a private DNS answer, a redirect, a rebinding)
lands there, and every test ends by asserting it saw nothing.
"""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import threading
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

PAGE = b"<html><head><title>Hello</title></head><body><h1>hello</h1></body></html>"
MEGABYTE = 1024 * 1024


def _bomb_blocks() -> tuple[bytes, bytes]:
    """The gzip stream of 1 GiB of zeros is its first 1 MiB block then 1023 identical ones: compress two, not 1024.

    A full flush after each block resets the compressor, so every block after the first compresses to the same
    bytes. The stream is sent without its trailer: a client that honours its cap stops long before the end.
    """
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(MEGABYTE)
    first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    second = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    return first, second


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True  # server_close() waits for every handler: nothing outlives the fixture

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.stopping = threading.Event()
        self.errors: list[BaseException] = []
        self.bomb = _bomb_blocks()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client hanging up on a bomb or a trickle is the point of those tests; anything else is a test bug.
        import sys

        error = sys.exc_info()[1]
        if error is not None and not isinstance(error, ConnectionError | TimeoutError | ssl.SSLError):
            self.errors.append(error)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._route()

    def do_HEAD(self) -> None:
        self._route()

    def do_POST(self) -> None:
        self._route()

    def do_PUT(self) -> None:
        self._route()

    def _route(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        path = parts.path
        if path.startswith("/chain/"):
            left = int(path.rsplit("/", 1)[1])
            if left:
                return self._send(302, b"", [("Location", f"/chain/{left - 1}")])
            return self._send(200, b"end")
        if path.startswith("/status/"):
            return self._send(int(path.rsplit("/", 1)[1]), b"nope")
        route: Callable[[dict[str, str]], None] | None = getattr(self, "_" + path.strip("/").replace("-", "_"), None)
        if route is None:
            return self._send(404, b"no such page")
        route(query)

    def _send(self, status: int, body: bytes, headers: list[tuple[str, str]] | None = None) -> None:
        self.send_response(status)
        for name, value in headers or [("Content-Type", "text/html; charset=utf-8")]:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _stream(self, headers: list[tuple[str, str]]) -> None:
        """Start a response whose body is delimited by closing the connection (HTTP/1.0), so it can be endless."""
        self.send_response(200)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()

    def _page(self, query: dict[str, str]) -> None:
        self._send(200, PAGE)

    def _echo(self, query: dict[str, str]) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode() if length else ""
        echo = {
            "method": self.command,
            "path": self.path,
            "host": self.headers.get("Host"),
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "body": body,
        }
        self._send(200, json.dumps(echo).encode(), [("Content-Type", "application/json")])

    def _redirect(self, query: dict[str, str]) -> None:
        self._send(int(query.get("status", "302")), b"", [("Location", query["to"])])

    def _loop(self, query: dict[str, str]) -> None:
        self._send(302, b"", [("Location", "/loop")])

    def _gzip(self, query: dict[str, str]) -> None:
        self._send(200, zlib.compress(PAGE, wbits=zlib.MAX_WBITS | 16), [("Content-Encoding", "gzip")])

    def _deflate(self, query: dict[str, str]) -> None:
        wbits = -zlib.MAX_WBITS if query.get("raw") else zlib.MAX_WBITS
        self._send(200, zlib.compress(PAGE, wbits=wbits), [("Content-Encoding", "deflate")])

    def _encoded(self, query: dict[str, str]) -> None:
        self._send(200, b"\x8b\x00garbage", [("Content-Encoding", query["enc"])])

    def _sized(self, query: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Length", query["n"])
        self.end_headers()
        self.wfile.write(b"x" * 10)

    def _etag(self, query: dict[str, str]) -> None:
        if self.headers.get("If-None-Match") == '"v1"':
            return self._send(304, b"", [("ETag", '"v1"')])
        self._send(200, PAGE, [("ETag", '"v1"'), ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")])

    def _bomb(self, query: dict[str, str]) -> None:
        self._stream([("Content-Type", "text/plain"), ("Content-Encoding", "gzip")])
        first, rest = self.server.bomb
        self.wfile.write(first)
        for _ in range(1023):
            if self.server.stopping.is_set():
                return
            self.wfile.write(rest)

    def _endless(self, query: dict[str, str]) -> None:
        self._stream([("Content-Type", "application/octet-stream")])
        chunk = bytes(64 * 1024)
        while not self.server.stopping.is_set():
            self.wfile.write(chunk)

    def _trickle(self, query: dict[str, str]) -> None:
        self._stream([("Content-Type", "text/plain")])
        for _ in range(100):
            self.wfile.write(b"x")
            self.wfile.flush()
            if self.server.stopping.wait(float(query.get("every", "0.2"))):
                return

    def _stall(self, query: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "100")
        self.end_headers()
        self.wfile.write(b"xx")
        self.wfile.flush()
        self.server.stopping.wait(30)

    def _headers(self, query: dict[str, str]) -> None:
        self.send_response(200)
        for index in range(int(query["kb"])):
            self.send_header(f"X-Pad-{index}", "a" * 1000)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


class Site:
    """The scripted server, started on a thread; `url(path)` builds its URLs."""

    def __init__(self, host: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> None:
        self.server = _Server((host, 0), _Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.host = host
        self.port: int = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def url(self, path: str, host: str | None = None, scheme: str = "http") -> str:
        return f"{scheme}://{host or self.host}:{self.port}{path}"

    def close(self) -> None:
        self.server.stopping.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
        assert not self.server.errors, self.server.errors


class Canary:
    """Listens on (host, port), counts every connection it is offered and hangs up at once."""

    def __init__(self, host: str, port: int) -> None:
        self.hits: list[tuple[str, int]] = []
        self._socket = socket.create_server((host, port))
        self._socket.settimeout(0.05)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, peer = self._socket.accept()
            except TimeoutError:
                continue
            self.hits.append(peer)
            connection.close()

    def close(self) -> None:
        self._stopping.set()
        self._thread.join(5)
        self._socket.close()


def site_and_canary() -> tuple[Site, Canary]:
    """A site on 127.0.0.1:P and a canary on 127.0.0.2:P (the same P), retrying if P is taken on 127.0.0.2."""
    for _ in range(10):
        site = Site()
        try:
            return site, Canary("127.0.0.2", site.port)
        except OSError:
            site.close()
    raise RuntimeError("no port free on both 127.0.0.1 and 127.0.0.2")


def self_signed_certificate(directory: Path, name: str) -> tuple[Path, Path] | None:
    """A certificate for `name` (and its key) made with the openssl CLI, or None when openssl is missing."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "1",
            "-subj",
            f"/CN={name}",
            "-addext",
            f"subjectAltName=DNS:{name}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key
