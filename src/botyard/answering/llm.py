"""The LLM answerer: the prompt within the model's budget, streamed through the configured provider.

It never raises for a provider failure: the answer stream always ends with one `Finished`, whose `error` (also in
`meta["error"]`) says what went wrong; the text streamed before it is kept by the caller. `finish_reason` stays
`stop` or `length` (the hosted API has no other value), so a failed answer reads `stop` with an error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from botyard.answering.base import AnswerEvent, AnswerRequest, Delta, Finished, Usage
from botyard.answering.prompt import build_prompt
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import Provider, StreamEnd, TextDelta
from botyard.llm.registry import ModelRegistry


class LlmAnswerer:
    """Implements `Answerer` with a `Provider`; one instance serves every request."""

    def __init__(self, provider: Provider, registry: ModelRegistry) -> None:
        self._provider = provider
        self._registry = registry

    async def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        """Stream the answer: `Delta`s as the provider sends them, then one `Finished`."""
        model = self._registry.resolve(request.model)
        prompt = build_prompt(request, model.context_tokens)
        parts: list[str] = []
        end = StreamEnd("error", error="the provider ended the stream without finishing")
        stream = self._provider.stream(
            prompt.messages, model=model.provider_model, temperature=request.temperature, max_tokens=prompt.max_tokens
        )
        async with aclosing(stream) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    if event.text:
                        parts.append(event.text)
                        yield Delta(event.text)
                elif isinstance(event, StreamEnd):
                    end = event
                    break
        if end.usage is not None and end.error is None:
            usage = Usage(end.usage.prompt_tokens, end.usage.completion_tokens)
        else:
            # A failed stream reports no usage; what we sent and what arrived is still what was spent.
            usage = Usage(prompt.prompt_tokens, count_tokens("".join(parts)))
        meta: dict[str, Any] = {
            "actual_token_distribution": {
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "total_tokens": usage.total_tokens,
            }
        }
        if end.error is not None:
            meta["error"] = end.error
        finish_reason = "length" if end.finish_reason == "length" else "stop"
        yield Finished(finish_reason, usage, error=end.error, meta=meta)
