"""A fake OpenAI-compatible server on loopback, scripted by the test, for the LLM provider and answerer.

`FakeLlm` serves `POST /v1/chat/completions` with `stream: true` as real server-sent events over real HTTP/1.1
(chunked, keep-alive). Each request takes the next scripted `Reply` (then the default one): a stream of tokens with
a delay, any `finish_reason`, an HTTP error before the first byte, a stall after k tokens, a malformed chunk. Every
request is recorded (headers and JSON body) so tests can assert what the prompt was.

A thread per connection (ThreadingHTTPServer with a deep accept queue): enough for a thousand concurrent streams.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from botyard.ingestion.tokens import count_tokens


@dataclass(frozen=True)
class Reply:
    """How the server answers one request."""

    tokens: Sequence[str] = ("Hello", " world", ".")
    delay: float = 0.0
    """Seconds before each token."""
    finish_reason: str = "stop"
    status: int = 200
    """Anything but 200: that status with `error_body`, before any byte of a stream."""
    error_body: str = '{"error": {"message": "internal error", "type": "server_error"}}'
    """`{auth}` is replaced by the request's Authorization header (a server that echoes the key back)."""
    stall_after: int | None = None
    """Send this many tokens, then nothing more until the server closes."""
    malformed_after: int | None = None
    """Send this many tokens, then `malformed` as a data line, then close."""
    malformed: str = '{"choices": [{"delta": {"content": "x"'
    usage: bool = True
    done: bool = True
    tool_calls: Sequence[tuple[str, str]] = ()
    """(name, arguments JSON) of function calls to ask for after the tokens; the finish reason is then
    `tool_calls`. The arguments are sent in two fragments, as real servers do."""

    @classmethod
    def words(cls, count: int, **options: Any) -> Reply:
        return cls(tokens=tuple(f"w{index} " for index in range(count)), **options)


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    """Lower-cased names."""
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, str]]:
        return list(self.body.get("messages", []))


@dataclass
class _State:
    default: Reply
    script: deque[Reply] = field(default_factory=deque)
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    errors: list[BaseException] = field(default_factory=list)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # idle keep-alive connections must not hold up close(); stalls wake on `stopping`
    request_queue_size = 2048

    def __init__(self, state: _State) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (idle timeout, cancelled stream) is expected; anything else is a bug in the fake.
        error = sys.exc_info()[1]
        if error is not None and not isinstance(error, ConnectionError | TimeoutError):
            self.state.errors.append(error)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    timeout = 60

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        state = self.server.state
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        received = Received(self.path, {name.lower(): value for name, value in self.headers.items()}, body)
        with state.lock:
            state.requests.append(received)
            reply = state.script.popleft() if state.script else state.default
        if self.path != "/v1/chat/completions":
            self._send(404, b'{"error": {"message": "not found"}}')
        elif reply.status != 200:
            text = reply.error_body.replace("{auth}", self.headers.get("authorization", ""))
            self._send(reply.status, text.encode())
        else:
            self._stream(reply, received)

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _stream(self, reply: Reply, received: Received) -> None:
        stopping = self.server.state.stopping
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        model = str(received.body.get("model", ""))
        self._event({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}, model)
        for index, token in enumerate(reply.tokens):
            if index == reply.stall_after:
                stopping.wait()
                self.close_connection = True
                return
            if index == reply.malformed_after:
                self._chunk(f"data: {reply.malformed}\n\n".encode())
                self.close_connection = True
                return
            if reply.delay and stopping.wait(reply.delay):
                return
            self._event({"choices": [{"index": 0, "delta": {"content": token}, "finish_reason": None}]}, model)
        for index, (name, arguments) in enumerate(reply.tool_calls):
            head = {
                "index": index,
                "id": f"call_{index}",
                "type": "function",
                "function": {"name": name, "arguments": arguments[:5]},
            }
            tail = {"index": index, "function": {"arguments": arguments[5:]}}
            for fragment in (head, tail):
                self._event(
                    {"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}, "finish_reason": None}]}, model
                )
        finish = "tool_calls" if reply.tool_calls else reply.finish_reason
        self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}, model)
        if reply.usage:
            prompt = sum(count_tokens(str(message.get("content", ""))) for message in received.messages)
            usage = {"prompt_tokens": prompt, "completion_tokens": len(reply.tokens)}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            self._event({"choices": [], "usage": usage}, model)
        if reply.done:
            self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")  # the last chunk of the chunked encoding

    def _event(self, chunk: dict[str, Any], model: str) -> None:
        payload = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model, **chunk}
        self._chunk(f"data: {json.dumps(payload)}\n\n".encode())

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


class FakeLlm:
    """The running fake; use as a context manager (or call `close`)."""

    def __init__(self, default: Reply | None = None) -> None:
        self._state = _State(default or Reply())
        self._server = _Server(self._state)
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-llm", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The API root to configure as `llm_base_url`."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def requests(self) -> list[Received]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def errors(self) -> list[BaseException]:
        return list(self._state.errors)

    def forget(self) -> None:
        """Drop the recorded requests and any scripted replies not used yet."""
        with self._state.lock:
            self._state.requests.clear()
            self._state.script.clear()

    def script(self, *replies: Reply) -> None:
        """Answer the next requests with `replies`, in order; later ones get the default reply."""
        with self._state.lock:
            self._state.script.extend(replies)

    def close(self) -> None:
        self._state.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeLlm:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
