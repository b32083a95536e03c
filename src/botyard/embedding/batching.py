"""Queries that arrive together run through the model together.

A bundled model's run over one short question is bound by reading its weights (42 MB of float32 for MiniLM's six
layers), not by the question's few tokens: four questions in one run cost about 1.7 times one, not 4 times (measured
on the 2-core machine: 5.8 ms of CPU per question alone, 3.4 ms each in runs of four). A burst of visitors asks many
questions at once, so each process keeps one queue of the questions waiting for the model: the first one runs at
once, alone; those that arrive while it runs go together in the next run, and so on. Nobody waits for a batch to
fill: a question waits at most for the run ahead of it, which it would have waited for anyway on a busy core.

Only for a model whose row of a text is the same in any batch (MiniLM: padding is masked out,
tests/embedding/test_embedding).
The queue belongs to the event loop that asks (a process that runs several loops, a test, gets one per loop).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from botyard.embedding.base import Vectors

RUN_LIMIT = 8
"""Questions per run at most (the model's own batch size for documents)."""


@dataclass
class _Queue:
    waiting: list[tuple[str, asyncio.Future[Vectors]]] = field(default_factory=list)
    runner: asyncio.Task[None] | None = None


class QueryBatcher:
    """Runs `run` (texts -> one row each, in a worker thread) over the questions that wait together."""

    def __init__(self, run: Callable[[Sequence[str]], Vectors], limit: int = RUN_LIMIT) -> None:
        self._run = run
        self._limit = limit
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue] = weakref.WeakKeyDictionary()

    async def one(self, text: str) -> Vectors:
        """The row of `text`, from the next run of the model."""
        loop = asyncio.get_running_loop()
        queue = self._queues.setdefault(loop, _Queue())
        future: asyncio.Future[Vectors] = loop.create_future()
        queue.waiting.append((text, future))
        if queue.runner is None or queue.runner.done():
            queue.runner = loop.create_task(self._drain(queue))
        return await future

    async def _drain(self, queue: _Queue) -> None:
        while queue.waiting:
            batch = [(text, future) for text, future in queue.waiting[: self._limit] if not future.done()]
            del queue.waiting[: self._limit]
            if not batch:  # every asker of these left (a cancelled request)
                continue
            try:
                rows = await asyncio.to_thread(self._run, [text for text, _ in batch])
            except Exception as error:  # each asker gets the model's error, as a run of its own would have given
                _settle(batch, error)
                continue
            except BaseException:  # the loop is closing: nobody is left to answer
                _settle(batch + queue.waiting, None)
                queue.waiting.clear()
                raise
            for (_, future), row in zip(batch, rows, strict=True):
                if not future.done():
                    future.set_result(np.asarray(row, dtype=np.float32))


def _settle(batch: Sequence[tuple[str, asyncio.Future[Vectors]]], error: Exception | None) -> None:
    """Fail the askers still waiting with `error` (None: cancel them)."""
    for _, future in batch:
        if future.done():
            continue
        if error is None:
            future.cancel()
        else:
            future.set_exception(error)
