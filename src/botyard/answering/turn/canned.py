"""A fixed reply (the no-answer message, a pre-canned agent's, a hand-off's, a refusal) streamed like an answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from botyard.answering.base import AnswerEvent, Finished
from botyard.answering.text import word_groups
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import TextDelta, Usage


async def canned(text: str, query: str, choices: tuple[str, ...] = ()) -> AsyncIterator[AnswerEvent]:
    """A fixed text streamed as an answer (the relevance decision, when one was made, goes in the message's meta),
    with the choices that go with it (a pre-canned agent's), which the message's meta keeps."""
    for group in word_groups(text):
        yield TextDelta(group)
        await asyncio.sleep(0)  # as the offline answerer: the response sends each group (unless it fell behind)
    meta = {"choices": list(choices)} if choices else {}
    yield Finished("stop", Usage(max(1, count_tokens(query)), max(1, count_tokens(text))), meta=meta)
