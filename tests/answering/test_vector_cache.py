"""The routing's vectors of prototypes and agents' descriptions are embedded once per process, however many messages
need them at once (a burst meeting a new worker), and a failed batch is tried again by whoever needs it next."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np
import pytest

from botyard.answering.routing.evidence import VectorCache
from botyard.embedding import EmbeddingError, Vectors
from tests.support.embedders import FakeEmbedder

pytestmark = pytest.mark.timeout(60)


class SlowEmbedder(FakeEmbedder):
    """Records each batch; each takes a few loop turns, so that others ask meanwhile."""

    def __init__(self, fail: int = 0) -> None:
        super().__init__(fail=fail)
        self.batches: list[list[str]] = []

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.batches.append(list(texts))
        for _ in range(5):
            await asyncio.sleep(0)
        return await super().embed_documents(texts)


def test_messages_that_miss_at_once_embed_each_text_once() -> None:
    embedder = SlowEmbedder()
    cache = VectorCache(embedder)

    async def main() -> list[np.ndarray]:
        asks = [["a", "b", "c"]] * 20 + [["b", "d"]] * 5
        return list(await asyncio.gather(*(cache.of(texts) for texts in asks)))

    rows = asyncio.run(main())
    assert embedder.batches == [["a", "b", "c"], ["d"]]  # "b" of the later messages waited for the first batch
    alone = asyncio.run(FakeEmbedder().embed_documents(["a", "b", "c", "d"]))
    assert np.array_equal(rows[0], alone[:3]) and np.array_equal(rows[-1], alone[[1, 3]])


def test_a_failed_batch_is_tried_again_by_the_next_that_needs_it() -> None:
    embedder = SlowEmbedder(fail=1)
    cache = VectorCache(embedder)

    async def main() -> list[object]:
        return list(await asyncio.gather(cache.of(["a", "b"]), cache.of(["a"]), return_exceptions=True))

    first, second = asyncio.run(main())
    assert isinstance(first, EmbeddingError)  # the one that embedded gets the model's error
    assert isinstance(second, np.ndarray) and second.shape == (1, 8)  # the waiter tried again, and got it
    assert embedder.batches == [["a", "b"], ["a"]]
