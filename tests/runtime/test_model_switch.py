"""A changed model connection reaches every part that follows it (`runtime.FollowsModelChange`): the pipeline's
answerer, the supervisor's judge, the tagger's judge and tool caller; and back to offline."""

from __future__ import annotations

import asyncio
from pathlib import Path

from botyard.answering.background.tagging import SessionTagger
from botyard.answering.model.answerer import LlmAnswerer
from botyard.answering.offline.answerer import OfflineAnswerer
from botyard.config import Settings
from botyard.runtime import FollowsModelChange, Runtime


def test_a_model_change_reaches_every_part_that_follows_it(tmp_path: Path) -> None:
    offline = Settings(data_dir=tmp_path, embedder="none")
    model = Settings(data_dir=tmp_path, embedder="none", llm_base_url="http://127.0.0.1:9/v1", llm_api_key="k")

    async def scenario() -> None:
        runtime = Runtime.build(offline)
        try:
            answers, router = runtime.answers, runtime.answers.router
            [tagger] = [h for h in runtime.runner.handlers.values() if isinstance(h, SessionTagger)]
            assert runtime.models.followers == [answers, router, tagger]
            assert all(isinstance(part, FollowsModelChange) for part in runtime.models.followers)
            assert isinstance(answers.parts.answerer, OfflineAnswerer)
            assert router.judge is None and tagger.judge is None and tagger.answerer is None

            runtime.models.switch(model)
            answerer = answers.parts.answerer
            assert isinstance(answerer, LlmAnswerer) and answerer.uses_tools
            assert router.judge is not None and tagger.judge is router.judge
            assert tagger.answerer is answerer  # it can call tools, and the tagger has a tool caller

            runtime.models.switch(offline)
            assert isinstance(answers.parts.answerer, OfflineAnswerer)
            assert router.judge is None and tagger.judge is None and tagger.answerer is None
        finally:
            await runtime.close()

    asyncio.run(scenario())
