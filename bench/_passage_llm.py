"""A fake OpenAI-compatible model for the answer benchmark: it "answers from the passages it is given".

`POST /v1/chat/completions` (always streamed, as the service asks) is answered from the last user message:

- an answer prompt with `<document ...>` blocks: the text of the first block (its passage, without the source and
  section lines), so the answer holds what retrieval ranked first;
- an answer prompt without any block (retrieval found nothing, the prompt says no passage matched): the hosted
  no-answer sentence;
- the request to condense a follow-up ("Last question: ..."): the conversation's last user line followed by the last
  question, a plausible standalone question.

It never judges relevance: with passages it always answers, so refusals in LLM mode measure retrieval's emptiness,
not a model. Every request's messages are recorded, so the benchmark can tell what context the model was given.
Standard library only; a thread per connection.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

NO_ANSWER = "Sorry, I cannot find related information in my reference documents."
_BLOCK = re.compile(r"<document\b[^>]*>\n(.*?)\n</document>", re.DOTALL)
_LAST_QUESTION = re.compile(r"^Last question: (.*)$", re.MULTILINE)
_USER_LINE = re.compile(r"^User: (.*)$", re.MULTILINE)
_PIECE = re.compile(r"\S+\s*|\s+")


def reply_to(messages: list[dict[str, Any]]) -> str:
    """What the fake model says to `messages`."""
    last = str(messages[-1].get("content") or "") if messages else ""
    if "<reference_documents>" not in last and (question := _LAST_QUESTION.search(last)):
        earlier = _USER_LINE.findall(last)
        return f"{earlier[-1]} {question[1]}" if earlier else question[1]
    block = _BLOCK.search(last)
    if block is None:
        return NO_ANSWER
    _heading, _, passage = block[1].partition("\n\n")  # "Source: ..." and "Section: ..." come before a blank line
    return passage.strip() or NO_ANSWER


@dataclass
class _State:
    requests: list[list[dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, state: _State) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The service's client dropping an idle keep-alive connection is expected; anything else is a bug here.
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        messages = list(body.get("messages", []))
        with self.server.state.lock:
            self.server.state.requests.append(messages)
        if self.path != "/v1/chat/completions":
            payload = b'{"error": {"message": "not found"}}'
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        model = str(body.get("model", ""))
        self._event({"delta": {"role": "assistant", "content": ""}}, model)
        for piece in _PIECE.findall(reply_to(messages)):
            self._event({"delta": {"content": piece}, "finish_reason": None}, model)
        self._event({"delta": {}, "finish_reason": "stop"}, model)
        self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")

    def _event(self, choice: dict[str, Any], model: str) -> None:
        payload: dict[str, Any] = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": model}
        payload["choices"] = [{"index": 0, **choice}]
        self._chunk(f"data: {json.dumps(payload)}\n\n".encode())

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


class PassageLlm:
    """The running fake on a free loopback port; a context manager."""

    def __init__(self) -> None:
        self._state = _State()
        self._server = _Server(self._state)
        self._thread = threading.Thread(target=self._server.serve_forever, name="passage-llm", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The API root for `BOTYARD_LLM_BASE_URL`."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def requests(self) -> list[list[dict[str, Any]]]:
        """The messages of every request received since the last `forget`, in order."""
        with self._state.lock:
            return list(self._state.requests)

    def forget(self) -> None:
        with self._state.lock:
            self._state.requests.clear()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> PassageLlm:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
