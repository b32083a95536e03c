"""The LLM answerer: the prompt within the model's budget, streamed through the configured provider.

It never raises for a provider failure: the answer stream always ends with one `Finished`, whose `error` (also in
`meta["error"]`) says what went wrong; the text streamed before it is kept by the caller. `finish_reason` stays
`stop` or `length` (the hosted API has no other value), so a failed answer reads `stop` with an error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from typing import Any

from botyard.answering.base import AnswerEvent, AnswerRequest, Delta, Finished, Turn, Usage
from botyard.answering.context import search_query
from botyard.answering.prompt import CONDENSE_MAX_TOKENS, build_prompt, condense_messages
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import Provider, StreamEnd, TextDelta
from botyard.llm.registry import ModelRegistry, UnknownModel


class LlmAnswerer:
    """Implements `Answerer` with a `Provider`; one instance serves every request."""

    def __init__(self, provider: Provider, registry: ModelRegistry) -> None:
        self._provider = provider
        self._registry = registry

    async def search_query(self, query: str, history: Sequence[Turn], model: str) -> str:
        """The model condenses a follow-up into a standalone question; without history the query is used as it
        is. A failed or empty rewrite falls back to the offline rule (the last turns' key terms), so a flaky
        provider costs retrieval quality, never the answer."""
        if not history:
            return query
        try:
            resolved = self._registry.resolve(model)
        except UnknownModel:
            return search_query(query, history)
        parts: list[str] = []
        failed = False
        stream = self._provider.stream(
            condense_messages(query, history),
            model=resolved.provider_model,
            temperature=0.0,
            max_tokens=CONDENSE_MAX_TOKENS,
        )
        async with aclosing(stream) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                elif isinstance(event, StreamEnd):
                    failed = event.error is not None
                    break
        rewritten = " ".join("".join(parts).split())
        return search_query(query, history) if failed or not rewritten else rewritten

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
