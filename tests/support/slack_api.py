"""A Slack Web API server on loopback, written from Slack's documentation (https://docs.slack.dev/reference/methods),
not from the service's code, and the Events API's signed requests as Slack sends them.

Methods: `auth.test` (the bot's identity for a known bot token, else `invalid_auth`),
`assistant.threads.setStatus` (recorded, taken as in an assistant thread), `chat.postMessage` (recorded; a message
without `channel` or `text` is `no_text`/`channel_not_found`; its `blocks` checked as Block Kit's limits say: a
`section`'s text at most 3,000 characters, an `actions` block at most 25 elements, a button's `plain_text` at most 75
characters, its `value` at most 2,000, `action_id`s unique in the message: else `invalid_blocks`). Slack answers 200
with `{"ok": false, "error"}` for a refusal and 429 with `Retry-After` for its rate limit; a test scripts the next
answers to `chat.postMessage` (`fail_next`). A button pressed reaches the app as an interactivity request:
`block_actions` builds its payload and `signed_form` signs it as Slack does (the form-encoded body, `payload=`).
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
from urllib.parse import urlencode

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


def _valid_blocks(blocks: Any) -> bool:
    if not isinstance(blocks, list) or len(blocks) > 50:
        return False
    action_ids: list[str] = []
    for block in blocks:
        if block.get("type") == "section" and len(block.get("text", {}).get("text", "")) > 3000:
            return False
        if block.get("type") == "actions":
            elements = block.get("elements", [])
            if not 1 <= len(elements) <= 25:
                return False
            for element in elements:
                label = element.get("text", {})
                if label.get("type") != "plain_text" or not 1 <= len(label.get("text", "")) <= 75:
                    return False
                if len(element.get("value", "")) > 2000:
                    return False
                action_ids.append(element.get("action_id", ""))
    return len(action_ids) == len(set(action_ids))


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
                if not _valid_blocks(body.get("blocks", [])):
                    self._answer(200, {}, {"ok": False, "error": "invalid_blocks"})
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
    return raw, _signed(raw, "application/json", secret, timestamp)


def _signed(raw: bytes, content_type: str, secret: str, timestamp: int | None) -> dict[str, str]:
    """Slack's headers for a request: `v0=` + HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + raw, hashlib.sha256).hexdigest()
    return {"Content-Type": content_type, "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={digest}"}


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


def block_actions(
    button: dict[str, Any], *, trigger_id: str, user: str = "U0USER1", channel: str = "D0DM01", message_ts: str = ""
) -> dict[str, Any]:
    """The interactivity payload of `button` (one element of a message's `actions` block) pressed, as Slack sends it."""
    ts = message_ts or "1764680100.000200"
    action = {
        "type": "button",
        "action_id": button["action_id"],
        "block_id": button["block_id"],
        "text": button["text"],
        "value": button["value"],
        "action_ts": "1764680200.123456",
    }
    return {
        "type": "block_actions",
        "team": {"id": "T0001", "domain": "shop"},
        "user": {"id": user, "username": "ada", "name": "ada", "team_id": "T0001"},
        "api_app_id": "A0001",
        "token": "verification-token-no-longer-used",
        "container": {"type": "message", "message_ts": ts, "channel_id": channel, "is_ephemeral": False},
        "trigger_id": trigger_id,
        "channel": {"id": channel, "name": "directmessage"},
        "message": {"type": "message", "user": BOT_USER, "ts": ts, "text": "..."},
        "response_url": "https://hooks.slack.com/actions/T0001/1/xyz",
        "actions": [action],
    }


def buttons_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The buttons of a posted message's `actions` blocks, each with its block's `block_id`."""
    return [
        {**element, "block_id": block.get("block_id", "")}
        for block in message.get("blocks", [])
        if block.get("type") == "actions"
        for element in block["elements"]
    ]


def signed_form(
    payload: dict[str, Any], secret: str = SIGNING_SECRET, timestamp: int | None = None
) -> tuple[bytes, dict[str, str]]:
    """An interactivity request as Slack sends it: `payload=` JSON, form-encoded, signed like an event."""
    raw = urlencode({"payload": json.dumps(payload)}).encode()
    return raw, _signed(raw, "application/x-www-form-urlencoded", secret, timestamp)
