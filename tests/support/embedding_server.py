"""A real OpenAI-compatible embeddings server on loopback: answers `POST /v1/embeddings`, records every request, and
can be told to fail, stall or answer nonsense."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def raw_vector(text: str, dimension: int) -> list[float]:
    """A deterministic, deliberately unnormalised vector for `text` (the client must normalise it)."""
    codes = [ord(char) for char in text] or [1]
    return [float(len(text) + 1)] + [float(codes[i % len(codes)] % 7 + i) for i in range(1, dimension)]


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class EmbeddingServer:
    """`status` other than 200 answers `error_body`; `delay` stalls each answer; `reverse` returns the rows in reverse
    order (with their `index`), `drop_one` one row too few."""

    dimension: int = 6
    status: int = 200
    error_body: bytes = b'{"error": {"message": "nope"}}'
    delay: float = 0.0
    reverse: bool = False
    drop_one: bool = False
    raw_body: bytes | None = None
    """Sent verbatim with status 200 instead of an answer (a proxy's page, say)."""
    received: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if server.delay:
                    time.sleep(server.delay)
                if self.path != "/v1/embeddings":
                    self._send(404, b'{"error": "not found"}')
                elif server.raw_body is not None:
                    self._send(200, server.raw_body)
                elif server.status != 200:
                    self._send(server.status, server.error_body)
                else:
                    self._send(200, json.dumps(server.answer(body)).encode())

            def _send(self, status: int, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a client that timed out
                    self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        rows = [
            {"object": "embedding", "index": index, "embedding": raw_vector(text, self.dimension)}
            for index, text in enumerate(body["input"])
        ]
        if self.reverse:
            rows.reverse()
        if self.drop_one:
            rows = rows[:-1]
        return {"object": "list", "data": rows, "model": body["model"], "usage": {"prompt_tokens": 1}}

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
