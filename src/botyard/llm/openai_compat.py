"""The provider for any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, ...).

One `POST {base}/chat/completions` with `stream: true`, read as server-sent events (`openai_stream`). The remote side
is configured by the operator, so it is trusted with our prompts, but not with our uptime: every read has an idle
timeout, the whole call a total one, a malformed chunk ends the stream with an error instead of an exception, and one
retry covers the transient failures that happen before anything was streamed (a refused connection, and the statuses
`botyard.openai_http` calls retryable: 408, 409, 429, 5xx). After the first delta there is no retry: the text
already went to the client, so the stream ends with the error and the text so far.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import Any

import httpx

from botyard.config import Settings
from botyard.egress import trusted_client
from botyard.llm.openai_stream import SseDecoder, StreamFailure, ToolCallAssembler, parse_chunk
from botyard.llm.provider import ChatMessage, ProviderEvent, StreamEnd, TextDelta, ToolSpec, Usage
from botyard.openai_http import ERROR_BODY_BYTES, error_detail, is_retryable_status, redact, retry_after_seconds

log = logging.getLogger(__name__)

RETRY_DELAY = 0.25
MAX_RETRY_DELAY = 2.0
"""A longer `Retry-After` is not waited for: the client is waiting too, and one retry is all it gets."""


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
        """The provider of `llm_base_url`, with its own connection pool (closed by `aclose`)."""
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
        body = _request_body(messages, model=model, temperature=temperature, max_tokens=max_tokens, tools=tools)
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
            except StreamFailure as failure:
                message = redact(str(failure), self._api_key)
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
            raise StreamFailure(f"could not reach the provider in time ({type(exc).__name__})", retryable=True) from exc
        except httpx.TransportError as exc:
            raise StreamFailure(f"could not reach the provider ({type(exc).__name__})", retryable=True) from exc
        try:
            if response.status_code != 200:
                raise await self._status_failure(response, deadline)
            async for event in self._events(response, deadline):
                yield event
        except httpx.TimeoutException as exc:
            raise StreamFailure(f"no data from the provider for {self._idle_timeout:g}s (idle timeout)") from exc
        except httpx.TransportError as exc:
            message = f"the connection to the provider failed ({type(exc).__name__})"
            raise StreamFailure(message, retryable=True) from exc
        finally:
            await response.aclose()

    async def _events(self, response: httpx.Response, deadline: float) -> AsyncGenerator[ProviderEvent, None]:
        decoder = SseDecoder()
        chunks = response.aiter_bytes()
        finish_reason: str | None = None
        usage: Usage | None = None
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
                text, reason, chunk_usage, parsed = parse_chunk(data)
                calls.feed(parsed)
                if text:
                    yield TextDelta(text)
                finish_reason = reason or finish_reason
                usage = chunk_usage or usage
            if chunk is None:
                break
        if finish_reason is None:
            raise StreamFailure("the provider closed the stream before it finished", retryable=True)
        # Some servers close without `[DONE]`; a finish_reason already said the answer is complete.
        for call in calls.finished():
            yield call
        yield StreamEnd(finish_reason, usage)

    def _timeout(self, deadline: float, *, idle: bool) -> _Deadline:
        return _Deadline(deadline, self._idle_timeout if idle else None, self._total_timeout)

    async def _status_failure(self, response: httpx.Response, deadline: float) -> StreamFailure:
        body = b""
        try:
            async with self._timeout(deadline, idle=True):
                async for piece in response.aiter_bytes():
                    body += piece
                    if len(body) >= ERROR_BODY_BYTES:
                        break
        except (StreamFailure, httpx.HTTPError):
            pass
        status = response.status_code
        return StreamFailure(
            f"the provider answered HTTP {status}: {error_detail(body, response.reason_phrase)}",
            retryable=is_retryable_status(status),
            retry_after=retry_after_seconds(response.headers.get("retry-after")),
        )


class _Deadline:
    """`asyncio.timeout` for one await, turned into a `StreamFailure` that says which limit was hit.

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
                raise StreamFailure(f"no data from the provider for {self._seconds:g}s (idle timeout)") from timeout
            raise StreamFailure(f"the provider took longer than {self._total:g}s (total timeout)") from timeout


def _request_body(
    messages: Sequence[ChatMessage], *, model: str, temperature: float, max_tokens: int, tools: Sequence[ToolSpec]
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": [_wire_message(message) for message in messages],
        "temperature": temperature,
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if tools:
        body["tools"] = [{"type": "function", "function": _wire_tool(tool)} for tool in tools]
    return body


def _wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def _wire_message(message: ChatMessage) -> dict[str, Any]:
    wired: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.images:
        # The content-parts form only when there are images: text-only servers keep getting a plain string.
        images = [{"type": "image_url", "image_url": {"url": url}} for url in message.images]
        wired["content"] = [{"type": "text", "text": message.content}, *images]
    if message.tool_calls:
        wired["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        wired["tool_call_id"] = message.tool_call_id
    return wired
