"""Building a chatbot's index, and running work on a large one, off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from botyard.embedding import Vectors
from botyard.memory import release_free_memory
from botyard.retrieval.embedded.index import ChatbotIndex
from botyard.retrieval.embedded.private import Private
from botyard.retrieval.embedded.unrelated import unrelated_evidence
from botyard.retrieval.knowledge import ChunkRow, Stored

P = ParamSpec("P")
T = TypeVar("T")

OFF_LOOP_ROWS = 5_000
"""Indexes at least this large are built and searched in a worker thread (below, it costs less than the hop)."""


async def off_loop(rows: int, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`work` on an index of `rows` rows: in a worker thread from `OFF_LOOP_ROWS` on, else right here."""
    if rows >= OFF_LOOP_ROWS:
        return await asyncio.to_thread(work, *args, **kwargs)
    return work(*args, **kwargs)


def build(
    version: int,
    rows: list[ChunkRow],
    vectors: list[Stored],
    parts: tuple[int, ...] | None,
    unrelated: list[Vectors | None],
    workdir: Private | None,
) -> ChatbotIndex:
    """A chatbot's index with what unrelated questions find in it (the relevance decision's bar)."""
    index = ChatbotIndex(version, rows, vectors, parts, workdir=workdir)
    # The caller's lists (100k chunks: 180 MB of vectors, 170 MB of rows) go back (`memory`): the index has columns.
    rows.clear()
    vectors.clear()
    release_free_memory()
    if index.size:
        index.unrelated = unrelated_evidence(index, unrelated)
    return index
