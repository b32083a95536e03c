"""The model catalogue: names agents may use, their context budget and their cost in credits.

Names are `<base>-<context>k`; the suffix is the context budget in tokens for sources and history.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_MODEL = "gpt-4o-mini-4k"

_NAME = re.compile(r"^(?P<base>[a-z0-9][a-z0-9.\-]*?)-(?P<context>\d+)k$")


@dataclass(frozen=True)
class CatalogueModel:
    name: str
    credits: int

    @property
    def base(self) -> str:
        match = _NAME.match(self.name)
        assert match is not None
        return match["base"]

    @property
    def context_tokens(self) -> int:
        match = _NAME.match(self.name)
        assert match is not None
        return int(match["context"]) * 1000


MODELS: tuple[CatalogueModel, ...] = (
    CatalogueModel("gpt-4o-mini-4k", 1),
    CatalogueModel("gpt-4o-mini-8k", 2),
    CatalogueModel("gpt-4o-mini-16k", 4),
    CatalogueModel("gpt-4o-mini-32k", 8),
    CatalogueModel("gpt-4o-mini-64k", 16),
    CatalogueModel("gpt-4o-mini-128k", 32),
    CatalogueModel("gpt-4.1-mini-4k", 1),
    CatalogueModel("gpt-4.1-mini-16k", 4),
    CatalogueModel("gpt-4.1-mini-64k", 16),
    CatalogueModel("gpt-4o-4k", 10),
    CatalogueModel("gpt-4o-8k", 20),
    CatalogueModel("gpt-4o-16k", 40),
    CatalogueModel("gpt-4o-32k", 80),
    CatalogueModel("gpt-4.1-4k", 10),
    CatalogueModel("gpt-4.1-16k", 40),
    CatalogueModel("gpt-5-4k", 10),
    CatalogueModel("gpt-5-16k", 40),
    CatalogueModel("gpt-5-mini-4k", 2),
    CatalogueModel("gpt-5-mini-16k", 8),
)

_BY_NAME = {model.name: model for model in MODELS}


def lookup(name: str) -> CatalogueModel | None:
    return _BY_NAME.get(name)


def model_names() -> list[str]:
    return [model.name for model in MODELS]


def model_costs() -> dict[str, int]:
    return {model.name: model.credits for model in MODELS}
