"""A real webhook receiver on loopback: it records every request it gets and answers as the test scripts it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def event(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.body)
        return loaded

    def signed_with(self, secret: str) -> bool:
        """The Standard Webhooks check a receiver makes on the raw body, written from the specification (not with
        the service's own code): HMAC-SHA256 keyed with the base64 after `whsec_`, over `{id}.{timestamp}.{body}`."""
        key = base64.b64decode(secret.removeprefix("whsec_"))
        signed = f"{self.headers['webhook-id']}.{self.headers['webhook-timestamp']}.".encode() + self.body
        expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        return any(hmac.compare_digest(expected, given) for given in self.headers["webhook-signature"].split())


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.received: list[Received] = []
        self.statuses: list[int] = []
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with self.server.lock:
            headers = {name.lower(): value for name, value in self.headers.items()}
            self.server.received.append(Received("POST", self.path, headers, body))
            status = self.server.statuses.pop(0) if self.server.statuses else 200
        self._answer(status, b"thanks" if status < 300 else b"receiver trouble")

    def do_GET(self) -> None:  # a data source pointed here finds nothing
        self._answer(404, b"no such page")

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Receiver:
    """`statuses` are the answers to the next POSTs, in order (200 once they run out)."""

    def __init__(self, server: _Server) -> None:
        self._server = server
        self.port: int = server.server_address[1]

    def url(self, path: str = "/hook", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def answer(self, *statuses: int) -> None:
        with self._server.lock:
            self._server.statuses[:] = list(statuses)

    @property
    def received(self) -> list[Received]:
        with self._server.lock:
            return list(self._server.received)


@contextmanager
def receiver() -> Iterator[Receiver]:
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield Receiver(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
