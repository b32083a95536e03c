"""From an agent's catalogue name (`gpt-4o-mini-4k`) to what the provider is asked for, and the prompt budget.

Agents name catalogue models, so the hosted API's names keep working; the operator decides what actually answers.
The provider model is, in order: the operator's map entry for the name, the operator's single default, or the
name's base (`gpt-4o-mini`), which is right for OpenAI itself. The `-Nk` suffix is the budget whatever the model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from difflib import get_close_matches

from botyard.config import Settings
from botyard.llm import catalogue
from botyard.llm.openai_compat import OpenAICompatProvider
from botyard.llm.provider import Provider

_SUFFIX = re.compile(r"^(?P<base>.+)-(?P<context>[1-9]\d*)k$")


@dataclass(frozen=True)
class ResolvedModel:
    name: str
    """The catalogue name the agent asked for."""
    provider_model: str
    context_tokens: int
    """The budget of the whole call: prompt and completion together."""


class UnknownModel(ValueError):
    """A name without the `-Nk` suffix: there is no budget to keep to."""


class ModelRegistry:
    """Resolves catalogue names; built once from the settings."""

    def __init__(self, model_map: Mapping[str, str] | None = None, default_model: str | None = None) -> None:
        unknown = sorted(name for name in model_map or {} if catalogue.lookup(name) is None)
        if unknown:
            # Fail at startup: a typo here would otherwise silently route that model to the default. The catalogue
            # has 200+ names, too many to list: suggest the nearest ones.
            near = {name: get_close_matches(name, catalogue.model_names(), n=3) for name in unknown}
            raise ValueError(
                f"llm_models names unknown catalogue models (nearest known names): {near}; "
                "GET /api/v1/agent/models lists them all"
            )
        self._map = dict(model_map or {})
        self._default = default_model

    @classmethod
    def from_settings(cls, settings: Settings) -> ModelRegistry:
        return cls(settings.llm_models, settings.llm_default_model)

    def resolve(self, name: str) -> ResolvedModel:
        """The provider model and budget for `name`; a name outside the catalogue still works if it has `-Nk`."""
        entry = catalogue.lookup(name)
        match = _SUFFIX.match(name)
        if entry is not None:
            base, context = entry.base, entry.context_tokens
        elif match is not None:
            base, context = match["base"], int(match["context"]) * 1000
        else:
            raise UnknownModel(f"model {name!r} has no -<N>k context suffix")
        provider_model = self._map.get(name) or self._default or base
        return ResolvedModel(name=name, provider_model=provider_model, context_tokens=context)


def build_llm_provider(settings: Settings) -> Provider | None:
    """The configured provider, or None when no `llm_base_url` is set (the offline answerer answers then).

    Build it in the app lifespan and `aclose()` it at shutdown: it holds the connection pool.
    """
    if settings.llm_base_url is None:
        return None
    return OpenAICompatProvider.from_settings(settings)
