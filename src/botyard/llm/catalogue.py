"""The model catalogue: names agents may use, their context budget and their cost in credits.

Names are `<base>-<context>k`; the suffix is the context budget in tokens for sources and history. The names and
costs are the hosted service's (`data/hosted-models.json`, see its NOTICE.md), so clients written against it find
every model they know; a few names Botyard served before that list stay valid for agents that already use them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib.resources import files

DEFAULT_MODEL = "gpt-4o-mini-4k"

_NAME = re.compile(r"^(?P<base>[a-z0-9][a-z0-9.\-]*?)-(?P<context>[1-9]\d*)k$")

# Botyard's own names that the hosted list lacks, with the cost Botyard gave them. Existing agents may store them,
# so they must stay valid; every other name Botyard had is in the hosted list, whose cost wins.
_PRE_HOSTED_NAMES: dict[str, int] = {"gpt-4o-mini-8k": 2}


@dataclass(frozen=True)
class CatalogueModel:
    name: str
    credits: int
    base: str
    """What the name means without its budget (`gpt-4o-mini`): the provider model when the operator names none."""
    context_tokens: int


def _entry(name: str, credits: object) -> CatalogueModel:
    # Checked at import: a bad entry in the data file should stop the service, not fail one agent later.
    match = _NAME.match(name)
    if match is None:
        raise ValueError(f"catalogue name {name!r} is not <base>-<N>k")
    if type(credits) is not int or credits <= 0:
        raise ValueError(f"catalogue model {name!r} costs {credits!r}, not a positive whole number of credits")
    return CatalogueModel(name, credits, match["base"], int(match["context"]) * 1000)


def _load() -> tuple[CatalogueModel, ...]:
    text = files("botyard.llm").joinpath("data", "hosted-models.json").read_text(encoding="utf-8")
    hosted: dict[str, object] = json.loads(text)
    entries = [_entry(name, credits) for name, credits in (_PRE_HOSTED_NAMES | hosted).items()]
    # Grouped by base, smallest budget first (the file's order is alphabetical: 128k before 16k before 2k), so a
    # list of 200 names reads like a menu.
    return tuple(sorted(entries, key=lambda model: (model.base, model.context_tokens)))


MODELS: tuple[CatalogueModel, ...] = _load()

_BY_NAME = {model.name: model for model in MODELS}


def lookup(name: str) -> CatalogueModel | None:
    return _BY_NAME.get(name)


def model_names() -> list[str]:
    return [model.name for model in MODELS]


def model_costs() -> dict[str, int]:
    return {model.name: model.credits for model in MODELS}
