"""A Slack Web API server on loopback, written from Slack's documentation (https://docs.slack.dev/reference/methods),
not from the service's code, and the Events API's signed requests as Slack sends them.

Methods: `auth.test` (the bot's identity for a known bot token, else `invalid_auth`),
`assistant.threads.setStatus` (recorded, taken as in an assistant thread), `chat.postMessage` (recorded;
a message without `channel` or `text` is `no_text`/`channel_not_found`). Slack answers 200 with `{"ok": false,
"error"}` for a refusal and 429 with `Retry-After` for its rate limit; a test scripts the next answers to
`chat.postMessage` (`fail_next`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT_TOKEN = "xoxb-1-test-bot-token-for-the-fake-slack"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
BOT_USER = "UBOT0001"


@dataclass
class _State:
    posted: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    failures: list[tuple[int, dict[str, str], dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = _State()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        method, state = self.path.strip("/"), self.server.state
        with state.lock:
            state.calls.append(method)
            if self.headers.get("Authorization") != f"Bearer {BOT_TOKEN}":
                self._answer(200, {}, {"ok": False, "error": "invalid_auth"})
            elif method == "auth.test":
                self._answer(200, {}, {"ok": True, "user_id": BOT_USER, "team_id": "T0001", "bot_id": "B0001"})
            elif method == "assistant.threads.setStatus":
                state.statuses.append(body)  # as in an assistant thread; Slack refuses it elsewhere
                self._answer(200, {}, {"ok": True})
            elif method == "chat.postMessage" and state.failures:
                self._answer(*state.failures.pop(0))
            elif method == "chat.postMessage":
                if not body.get("text"):
                    self._answer(200, {}, {"ok": False, "error": "no_text"})
                    return
                state.posted.append(body)
                self._answer(200, {}, {"ok": True, "channel": body.get("channel"), "ts": f"{time.time():.6f}"})
            else:
                self._answer(200, {}, {"ok": False, "error": "unknown_method"})

    def _answer(self, status: int, headers: dict[str, str], body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class SlackApi:
    def __init__(self, server: _Server) -> None:
        self._server = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}"

    def posted(self) -> list[dict[str, Any]]:
        with self._server.state.lock:
            return list(self._server.state.posted)

    def statuses(self) -> list[dict[str, Any]]:
        """The thread statuses set (`assistant.threads.setStatus` bodies), in order."""
        with self._server.state.lock:
            return list(self._server.state.statuses)

    def fail_next(self, *answers: tuple[int, dict[str, str], dict[str, Any]]) -> None:
        with self._server.state.lock:
            self._server.state.failures[:] = list(answers)


def rate_limited(seconds: int) -> tuple[int, dict[str, str], dict[str, Any]]:
    return 429, {"Retry-After": str(seconds)}, {"ok": False, "error": "ratelimited"}


@contextmanager
def slack_api() -> Iterator[SlackApi]:
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield SlackApi(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def signed_request(
    body: dict[str, Any], secret: str = SIGNING_SECRET, timestamp: int | None = None
) -> tuple[bytes, dict[str, str]]:
    """An Events API request as Slack sends it: the body and its `v0` signature headers."""
    raw = json.dumps(body).encode()
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + raw, hashlib.sha256).hexdigest()
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": f"v0={digest}",
    }
    return raw, headers


def event_callback(
    event_id: str, text: str, *, user: str = "U0USER1", channel: str = "D0DM01", **event: Any
) -> dict[str, Any]:
    """A direct message to the bot, as an `event_callback`."""
    ts = event.pop("ts", f"{1764680000 + int(event_id.strip('Ev') or 0) % 100000}.000100")
    inner = {"type": "message", "channel_type": "im", "user": user, "text": text, "channel": channel, "ts": ts, **event}
    return {
        "type": "event_callback",
        "team_id": "T0001",
        "event_id": event_id,
        "event_time": 1764680000,
        "event": inner,
    }
