"""Questions asked at the same time share a run of the model (`embedding.batching`): each gets its own row, the
same as alone, an error reaches every asker of its run, and an asker who leaves costs the others nothing."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import numpy as np
import pytest

from botyard.embedding.batching import QueryBatcher
from botyard.embedding.minilm import MiniLMEmbedder

pytestmark = pytest.mark.timeout(60)


class Model:
    """Rows made from the text's length; records each run's texts, and holds the first run until released."""

    def __init__(self) -> None:
        self.runs: list[list[str]] = []
        self.release = threading.Event()
        self.started = threading.Event()

    def run(self, texts: Sequence[str]) -> np.ndarray:
        self.runs.append(list(texts))
        self.started.set()
        if len(self.runs) == 1:
            self.release.wait(10)
        if any(text == "boom" for text in texts):
            raise RuntimeError("the model failed")
        return np.array([[len(text), 1.0] for text in texts], dtype=np.float32)


async def _started(model: Model) -> None:
    assert await asyncio.to_thread(model.started.wait, 10)


def test_questions_that_arrive_during_a_run_go_together_in_the_next() -> None:
    model = Model()
    batcher = QueryBatcher(model.run, limit=3)

    async def main() -> list[np.ndarray]:
        first = asyncio.ensure_future(batcher.one("a"))
        await _started(model)
        later = [asyncio.ensure_future(batcher.one("b" * size)) for size in range(2, 7)]
        await asyncio.sleep(0.01)
        model.release.set()
        return await asyncio.gather(first, *later)

    rows = asyncio.run(main())
    assert model.runs == [["a"], ["bb", "bbb", "bbbb"], ["bbbbb", "bbbbbb"]]  # alone at once, then at most 3
    assert [float(row[0]) for row in rows] == [1, 2, 3, 4, 5, 6]


def test_an_error_reaches_every_asker_of_its_run_and_no_other() -> None:
    model = Model()
    batcher = QueryBatcher(model.run)

    async def main() -> list[object]:
        first = asyncio.ensure_future(batcher.one("a"))
        await _started(model)
        together = [asyncio.ensure_future(batcher.one(text)) for text in ("boom", "fine")]
        model.release.set()
        results = await asyncio.gather(first, *together, return_exceptions=True)
        return [*results, await batcher.one("after")]

    first, boom, fine, after = asyncio.run(main())
    assert isinstance(boom, RuntimeError) and isinstance(fine, RuntimeError)  # one run, one failure
    assert float(np.asarray(first)[0]) == 1 and float(np.asarray(after)[0]) == 5


def test_an_asker_who_leaves_is_skipped_and_the_others_are_answered() -> None:
    model = Model()
    batcher = QueryBatcher(model.run)

    async def main() -> np.ndarray:
        first = asyncio.ensure_future(batcher.one("a"))
        await _started(model)
        gone = asyncio.ensure_future(batcher.one("gone"))
        stays = asyncio.ensure_future(batcher.one("stays"))
        await asyncio.sleep(0)
        gone.cancel()
        model.release.set()
        await first
        return await stays

    assert float(asyncio.run(main())[0]) == 5
    assert model.runs[1] == ["stays"]


def test_minilm_gives_questions_asked_together_the_rows_they_get_alone() -> None:
    model = MiniLMEmbedder()
    texts = ["How long is the warranty?", "Can I speak to someone, please?", "Hi", "Tell me about garden river stone"]

    async def main() -> tuple[list[np.ndarray], list[np.ndarray]]:
        alone = [await model.embed_query(text) for text in texts]
        return alone, list(await asyncio.gather(*(model.embed_query(text) for text in texts)))

    alone, together = asyncio.run(main())
    assert all(np.array_equal(a, b) for a, b in zip(alone, together, strict=True))
