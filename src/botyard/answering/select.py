"""The one place that decides which answerer a process uses."""

from __future__ import annotations

from botyard.answering.base import Answerer
from botyard.answering.model.answerer import LlmAnswerer
from botyard.answering.offline.answerer import OfflineAnswerer
from botyard.config import Settings
from botyard.llm.provider import Provider
from botyard.llm.registry import ModelRegistry, build_llm_provider


def build_answerer(settings: Settings) -> tuple[Answerer, Provider | None]:
    """The LLM answerer when `BOTYARD_LLM_BASE_URL` is set, else the offline one (no network, always available).

    The provider is returned too: it holds a connection pool that the runtime closes at shutdown.
    """
    provider = build_llm_provider(settings)
    if provider is None:
        return OfflineAnswerer(), None
    return LlmAnswerer(provider, ModelRegistry.from_settings(settings)), provider
