"""Reading a streamed chat completion: server-sent events, `chat.completion.chunk`s and the tool calls they carry.

Whatever the server sends, a reader either returns what it understood or raises `StreamFailure`; the provider turns
that into the stream's error (`openai_compat`).
"""

from __future__ import annotations

import codecs
import json
from typing import Any

from botyard.llm.provider import ToolCall, Usage

MAX_EVENT_CHARS = 1024 * 1024
"""A longer SSE line or event is a broken server, not a chunk to buffer forever."""


class StreamFailure(Exception):
    """Ends one attempt. `retryable`: a second attempt may succeed (if nothing was streamed yet)."""

    def __init__(self, message: str, *, retryable: bool = False, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class SseDecoder:
    """Splits a byte stream into the `data` payloads of its server-sent events (multi-line data joined by `\\n`).

    Comments (`: ping`), `event:`, `id:` and `retry:` fields are ignored: OpenAI-compatible servers put everything
    in `data`.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._line = ""
        self._data: list[str] = []
        self._size = 0

    def feed(self, chunk: bytes) -> list[str]:
        """The payloads of the events that `chunk` completes."""
        *lines, self._line = (self._line + self._decoder.decode(chunk)).split("\n")
        if len(self._line) > MAX_EVENT_CHARS:
            raise StreamFailure("the provider sent an over-long stream line")
        return self._take(lines)

    def finish(self) -> list[str]:
        """The payloads still pending when the stream ends (a last event without its blank line)."""
        lines = [self._line + self._decoder.decode(b"", final=True), ""]
        self._line = ""
        return self._take(lines)

    def _take(self, lines: list[str]) -> list[str]:
        payloads: list[str] = []
        for raw in lines:
            line = raw.removesuffix("\r")
            if not line:
                if self._data:
                    payloads.append("\n".join(self._data))
                self._data, self._size = [], 0
            elif line == "data" or line.startswith("data:"):
                value = line[5:]
                self._data.append(value[1:] if value.startswith(" ") else value)
                self._size += len(value)
                if self._size > MAX_EVENT_CHARS:
                    raise StreamFailure("the provider sent an over-long stream event")
        return payloads


class ToolCallAssembler:
    """Joins the fragments of the tool calls a stream carries (`delta.tool_calls`, keyed by their `index`: the id
    and name come first, the arguments' JSON in pieces)."""

    MAX_ARGUMENT_CHARS = 16_000

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, str]] = {}

    def feed(self, chunk: dict[str, Any]) -> None:
        """Take the tool-call fragments of one chunk, as `parse_chunk` parsed and checked it (parsed once: a long
        answer is hundreds of chunks)."""
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {} if isinstance(choice, dict) else {}
            for fragment in delta.get("tool_calls") or [] if isinstance(delta, dict) else []:
                if not isinstance(fragment, dict) or not isinstance(fragment.get("index", 0), int):
                    raise StreamFailure("the provider sent a malformed tool call")
                call = self._calls.setdefault(fragment.get("index", 0), {"id": "", "name": "", "arguments": ""})
                function = fragment.get("function") or {}
                call["id"] = str(fragment.get("id") or call["id"])
                call["name"] = str(function.get("name") or call["name"])
                call["arguments"] += str(function.get("arguments") or "")
                if len(call["arguments"]) > self.MAX_ARGUMENT_CHARS:
                    raise StreamFailure("the provider sent over-long tool call arguments")

    def finished(self) -> list[ToolCall]:
        """The whole calls so far, in index order (nameless ones dropped); the assembler starts over."""
        calls = [
            ToolCall(c["id"] or f"call_{index}", c["name"], c["arguments"] or "{}")
            for index, c in sorted(self._calls.items())
        ]
        self._calls.clear()
        return [call for call in calls if call.name]


def parse_chunk(data: str) -> tuple[str, str | None, Usage | None, dict[str, Any]]:
    """One `chat.completion.chunk`: its text, its finish_reason, its usage and the parsed chunk (for
    `ToolCallAssembler.feed`); `StreamFailure` when it is malformed or carries an error."""
    try:
        chunk = json.loads(data)
    except ValueError as exc:
        raise StreamFailure(f"the provider sent a malformed chunk: {data[:80]!r}") from exc
    if not isinstance(chunk, dict):
        raise StreamFailure(f"the provider sent a malformed chunk: {data[:80]!r}")
    error = chunk.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        raise StreamFailure(f"the provider reported an error: {str(message)[:300]}")
    choices = chunk.get("choices") or []
    if not isinstance(choices, list):
        raise StreamFailure("the provider sent a malformed chunk: choices is not a list")
    text, finish_reason = "", None
    for choice in choices:
        delta = (choice.get("delta") or {}) if isinstance(choice, dict) else None
        content = delta.get("content") if isinstance(delta, dict) else None
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        if not isinstance(delta, dict) or not isinstance(content, str | None) or not isinstance(reason, str | None):
            raise StreamFailure(f"the provider sent a malformed chunk: {data[:80]!r}")
        if choice.get("index", 0) != 0:
            continue  # we ask for one choice; a server that sends more gets only the first one read
        text += content or ""
        finish_reason = reason or finish_reason
    return text, finish_reason, _usage(chunk.get("usage")), chunk


def _usage(value: object) -> Usage | None:
    """The usage block, or None when missing or odd: usage is then counted by us, not worth failing a stream for."""
    if not isinstance(value, dict):
        return None
    prompt, completion = value.get("prompt_tokens"), value.get("completion_tokens")
    if isinstance(prompt, int) and isinstance(completion, int) and prompt >= 0 and completion >= 0:
        return Usage(prompt, completion)
    return None
