"""The provider for any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, ...).

One `POST {base}/chat/completions` with `stream: true`, read as server-sent events. The remote side is configured by
the operator, so it is trusted with our prompts, but not with our uptime: every read has an idle timeout, the whole
call a total one, a malformed chunk ends the stream with an error instead of an exception, and one retry covers the
transient failures that happen before anything was streamed (a refused connection, a 5xx, a 429). After the first
delta there is no retry: the text already went to the client, so the stream ends with the error and the text so far.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import logging
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import Any

import httpx

from botyard.config import Settings
from botyard.egress.client import trusted_client
from botyard.llm.provider import ChatMessage, ProviderEvent, StreamEnd, TextDelta, TokenUsage, ToolCall, ToolSpec

log = logging.getLogger(__name__)

MAX_EVENT_CHARS = 1024 * 1024
"""A longer SSE line or event is a broken server, not a chunk to buffer forever."""
RETRY_DELAY = 0.25
MAX_RETRY_DELAY = 2.0
"""A longer `Retry-After` is not waited for: the client is waiting too, and one retry is all it gets."""
_ERROR_BODY_BYTES = 2048


class _Failure(Exception):
    """Ends one attempt. `retryable`: a second attempt may succeed (if nothing was streamed yet)."""

    def __init__(self, message: str, *, retryable: bool = False, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class OpenAICompatProvider:
    """Streams chat completions from `{base_url}/chat/completions` through a client built by `trusted_client`."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        api_key: str | None,
        idle_timeout: float,
        total_timeout: float,
        retry_delay: float = RETRY_DELAY,
    ) -> None:
        self._client = client
        # Kept only to scrub it from error texts (a 401 body may quote it back); never logged.
        self._api_key = api_key
        self._idle_timeout = idle_timeout
        self._total_timeout = total_timeout
        self._retry_delay = retry_delay

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAICompatProvider:
        if settings.llm_base_url is None:
            raise ValueError("llm_base_url is not set")
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key is not None else None
        client = trusted_client(
            settings.llm_base_url, key, settings.llm_idle_timeout, max_connections=settings.llm_max_connections
        )
        return cls(
            client, api_key=key, idle_timeout=settings.llm_idle_timeout, total_timeout=settings.llm_total_timeout
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        model: str,
        temperature: float,
        max_tokens: int,
        tools: Sequence[ToolSpec] = (),
    ) -> AsyncGenerator[ProviderEvent, None]:
        """Stream one completion; see `Provider.stream`."""
        body: dict[str, Any] = {
            "model": model,
            "messages": [_wire_message(message) for message in messages],
            "temperature": temperature,
            "max_tokens": max_tokens,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in tools
            ]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._total_timeout
        for attempt in (1, 2):
            streamed = False
            try:
                async with aclosing(self._attempt(body, deadline)) as events:
                    async for event in events:
                        streamed = streamed or isinstance(event, TextDelta)
                        yield event
                return
            except _Failure as failure:
                message = self._redact(str(failure))
                delay = min(failure.retry_after or self._retry_delay, MAX_RETRY_DELAY)
                if attempt == 1 and failure.retryable and not streamed and loop.time() + delay < deadline:
                    log.warning("LLM request failed, retrying once: %s", message)
                    await asyncio.sleep(delay)
                    continue
                log.warning("LLM request failed: %s", message)
                yield StreamEnd("error", error=message)
                return

    async def _attempt(self, body: dict[str, Any], deadline: float) -> AsyncGenerator[ProviderEvent, None]:
        request = self._client.build_request("POST", "chat/completions", json=body)
        try:
            async with self._timeout(deadline, idle=False):
                response = await self._client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise _Failure(f"could not reach the provider in time ({type(exc).__name__})", retryable=True) from exc
        except httpx.TransportError as exc:
            raise _Failure(f"could not reach the provider ({type(exc).__name__})", retryable=True) from exc
        try:
            if response.status_code != 200:
                raise await self._status_failure(response, deadline)
            async for event in self._events(response, deadline):
                yield event
        except httpx.TimeoutException as exc:
            raise _Failure(f"no data from the provider for {self._idle_timeout:g}s (idle timeout)") from exc
        except httpx.TransportError as exc:
            raise _Failure(f"the connection to the provider failed ({type(exc).__name__})", retryable=True) from exc
        finally:
            await response.aclose()

    async def _events(self, response: httpx.Response, deadline: float) -> AsyncGenerator[ProviderEvent, None]:
        decoder = SseDecoder()
        chunks = response.aiter_bytes()
        finish_reason: str | None = None
        usage: TokenUsage | None = None
        calls = ToolCallAssembler()
        while True:
            async with self._timeout(deadline, idle=True):
                chunk = await anext(chunks, None)
            payloads = decoder.feed(chunk) if chunk is not None else decoder.finish()
            for data in payloads:
                if data.strip() == "[DONE]":
                    for call in calls.finished():
                        yield call
                    yield StreamEnd(finish_reason or "stop", usage)
                    return
                text, reason, chunk_usage = parse_chunk(data)
                calls.feed(data)
                if text:
                    yield TextDelta(text)
                finish_reason = reason or finish_reason
                usage = chunk_usage or usage
            if chunk is None:
                break
        if finish_reason is None:
            raise _Failure("the provider closed the stream before it finished", retryable=True)
        # Some servers close without `[DONE]`; a finish_reason already said the answer is complete.
        for call in calls.finished():
            yield call
        yield StreamEnd(finish_reason, usage)

    def _timeout(self, deadline: float, *, idle: bool) -> _Deadline:
        return _Deadline(deadline, self._idle_timeout if idle else None, self._total_timeout)

    async def _status_failure(self, response: httpx.Response, deadline: float) -> _Failure:
        status = response.status_code
        detail = b""
        try:
            async with self._timeout(deadline, idle=True):
                async for piece in response.aiter_bytes():
                    detail += piece
                    if len(detail) >= _ERROR_BODY_BYTES:
                        break
        except (_Failure, httpx.HTTPError):
            pass
        text = " ".join(detail[:_ERROR_BODY_BYTES].decode("utf-8", "replace").split())[:300]
        retry_after = _seconds(response.headers.get("retry-after"))
        retryable = status == 429 or status >= 500
        return _Failure(f"the provider answered HTTP {status}: {text}", retryable=retryable, retry_after=retry_after)

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text


class _Deadline:
    """`asyncio.timeout` for one await, turned into a `_Failure` that says which limit was hit.

    Scoped to a single await on purpose: a timeout context must never span a `yield` of an async generator, or it
    would fire in the consumer's code.
    """

    def __init__(self, deadline: float, idle: float | None, total: float) -> None:
        loop = asyncio.get_running_loop()
        remaining = deadline - loop.time()
        self._idle = idle is not None and idle < remaining
        self._total = total
        self._seconds = idle if idle is not None and self._idle else remaining
        self._inner = asyncio.timeout(max(self._seconds, 0.0))

    async def __aenter__(self) -> None:
        await self._inner.__aenter__()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        try:
            await self._inner.__aexit__(exc_type, exc, tb)
        except TimeoutError as timeout:
            if self._idle:
                raise _Failure(f"no data from the provider for {self._seconds:g}s (idle timeout)") from timeout
            raise _Failure(f"the provider took longer than {self._total:g}s (total timeout)") from timeout


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
        *lines, self._line = (self._line + self._decoder.decode(chunk)).split("\n")
        if len(self._line) > MAX_EVENT_CHARS:
            raise _Failure("the provider sent an over-long stream line")
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
                    raise _Failure("the provider sent an over-long stream event")
        return payloads


def _wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def _wire_message(message: ChatMessage) -> dict[str, Any]:
    wired: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wired["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        wired["tool_call_id"] = message.tool_call_id
    return wired


class ToolCallAssembler:
    """Joins the fragments of the tool calls a stream carries (`delta.tool_calls`, keyed by their `index`: the id
    and name come first, the arguments' JSON in pieces)."""

    MAX_ARGUMENT_CHARS = 16_000

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, str]] = {}

    def feed(self, data: str) -> None:
        chunk = json.loads(data)  # parse_chunk has checked it already
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {} if isinstance(choice, dict) else {}
            for fragment in delta.get("tool_calls") or [] if isinstance(delta, dict) else []:
                if not isinstance(fragment, dict) or not isinstance(fragment.get("index", 0), int):
                    raise _Failure("the provider sent a malformed tool call")
                call = self._calls.setdefault(fragment.get("index", 0), {"id": "", "name": "", "arguments": ""})
                function = fragment.get("function") or {}
                call["id"] = str(fragment.get("id") or call["id"])
                call["name"] = str(function.get("name") or call["name"])
                call["arguments"] += str(function.get("arguments") or "")
                if len(call["arguments"]) > self.MAX_ARGUMENT_CHARS:
                    raise _Failure("the provider sent over-long tool call arguments")

    def finished(self) -> list[ToolCall]:
        calls = [
            ToolCall(c["id"] or f"call_{index}", c["name"], c["arguments"] or "{}")
            for index, c in sorted(self._calls.items())
        ]
        self._calls.clear()
        return [call for call in calls if call.name]


def parse_chunk(data: str) -> tuple[str, str | None, TokenUsage | None]:
    """One `chat.completion.chunk`: its text, its finish_reason and its usage; `_Failure` when it is malformed."""
    try:
        chunk = json.loads(data)
    except ValueError as exc:
        raise _Failure(f"the provider sent a malformed chunk: {data[:80]!r}") from exc
    if not isinstance(chunk, dict):
        raise _Failure(f"the provider sent a malformed chunk: {data[:80]!r}")
    error = chunk.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        raise _Failure(f"the provider reported an error: {str(message)[:300]}")
    choices = chunk.get("choices") or []
    if not isinstance(choices, list):
        raise _Failure("the provider sent a malformed chunk: choices is not a list")
    text, finish_reason = "", None
    for choice in choices:
        delta = (choice.get("delta") or {}) if isinstance(choice, dict) else None
        content = delta.get("content") if isinstance(delta, dict) else None
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        if not isinstance(delta, dict) or not isinstance(content, str | None) or not isinstance(reason, str | None):
            raise _Failure(f"the provider sent a malformed chunk: {data[:80]!r}")
        if choice.get("index", 0) != 0:
            continue  # we ask for one choice; a server that sends more gets only the first one read
        text += content or ""
        finish_reason = reason or finish_reason
    return text, finish_reason, _usage(chunk.get("usage"))


def _usage(value: object) -> TokenUsage | None:
    """The usage block, or None when missing or odd: usage is then counted by us, not worth failing a stream for."""
    if not isinstance(value, dict):
        return None
    prompt, completion = value.get("prompt_tokens"), value.get("completion_tokens")
    if isinstance(prompt, int) and isinstance(completion, int) and prompt >= 0 and completion >= 0:
        return TokenUsage(prompt, completion)
    return None


def _seconds(value: str | None) -> float | None:
    try:
        return max(float(value), 0.0) if value else None
    except ValueError:
        return None  # an HTTP date: not worth parsing for a wait capped at two seconds
