"""The model catalogue: the hosted service's names and costs, served, accepted by agents and resolved to providers."""

from __future__ import annotations

import hashlib
import json
from importlib.resources import files

import pytest

from botyard.llm import catalogue
from botyard.llm.catalogue import DEFAULT_MODEL, model_costs, model_names
from botyard.llm.registry import ModelRegistry
from tests.support.agents import make_agent
from tests.support.api import Api, assert_error

HOSTED_FILE = files("botyard.llm").joinpath("data", "hosted-models.json")
# The digest the data's NOTICE.md records: the file is the hosted list as published, unchanged.
HOSTED_SHA256 = "455f85969e3bfda67e78e34b42e73acfafb736f0a2d8175230c66c578444fe75"
# Read raw, not through the catalogue module, so that a bug in loading it cannot hide in both sides of a comparison.
HOSTED: dict[str, int] = json.loads(HOSTED_FILE.read_text(encoding="utf-8"))
# The names Botyard served before it had the hosted list; agents may store any of them.
PRE_HOSTED_NAMES = [
    *("gpt-4o-mini-4k", "gpt-4o-mini-8k", "gpt-4o-mini-16k", "gpt-4o-mini-32k", "gpt-4o-mini-64k", "gpt-4o-mini-128k"),
    *("gpt-4.1-mini-4k", "gpt-4.1-mini-16k", "gpt-4.1-mini-64k", "gpt-4o-4k", "gpt-4o-8k", "gpt-4o-16k", "gpt-4o-32k"),
    *("gpt-4.1-4k", "gpt-4.1-16k", "gpt-5-4k", "gpt-5-16k", "gpt-5-mini-4k", "gpt-5-mini-16k"),
]


def test_the_packaged_hosted_list_is_the_published_one() -> None:
    assert hashlib.sha256(HOSTED_FILE.read_bytes()).hexdigest() == HOSTED_SHA256
    notice = files("botyard.llm").joinpath("data", "NOTICE.md").read_text(encoding="utf-8")
    assert HOSTED_SHA256 in notice
    assert len(HOSTED) == 210


def test_every_hosted_name_is_listed_with_its_cost(alice: Api) -> None:
    models = alice.ok(alice.get("/agent/models"))
    costs = alice.ok(alice.get("/agent/model-costs"))
    assert set(models) == {"models"} and set(costs) == {"model_costs"}
    assert {name: costs["model_costs"][name] for name in HOSTED} == HOSTED
    assert set(HOSTED) <= set(models["models"])
    assert list(costs["model_costs"]) == models["models"], "the two lists name the same models in the same order"
    assert len(models["models"]) == len(set(models["models"])) == len(HOSTED) + 1, "plus gpt-4o-mini-8k"
    assert all(type(value) is int and value > 0 for value in costs["model_costs"].values())
    assert models == {"models": model_names()} and costs == {"model_costs": model_costs()}


def test_the_lists_need_an_api_key(alice: Api) -> None:
    for path in ("/api/v1/agent/models", "/api/v1/agent/model-costs"):
        assert_error(alice.client.get(path), 401, "unauthorized")


def test_the_names_the_official_sdk_tests(alice: Api) -> None:
    models = alice.ok(alice.get("/agent/models"))["models"]
    costs = alice.ok(alice.get("/agent/model-costs"))["model_costs"]
    assert costs["gpt-5-8k"] == 10
    assert costs["claude-4.5-sonnet-128k"] == 264
    assert "gpt-4o-8k" in models
    assert "gpt-4o-mini" not in models and "gpt-4o-mini" not in costs


def test_botyards_earlier_names_stay_valid_and_the_hosted_cost_wins() -> None:
    assert all(catalogue.lookup(name) is not None for name in PRE_HOSTED_NAMES)
    costs = model_costs()
    assert costs["gpt-4o-mini-8k"] == 2, "not in the hosted list: Botyard's own cost"
    assert (costs["gpt-5-4k"], costs["gpt-4o-32k"]) == (5, 60), "in both lists: the hosted cost (Botyard said 10, 80)"


def test_the_default_model_is_a_hosted_name() -> None:
    assert DEFAULT_MODEL == "gpt-4o-mini-4k" and DEFAULT_MODEL in HOSTED


def test_a_base_lists_its_budgets_smallest_first() -> None:
    names = model_names()
    assert names.index("gpt-5-2k") < names.index("gpt-5-4k") < names.index("gpt-5-16k") < names.index("gpt-5-128k")


def test_agent_create_accepts_every_catalogue_name(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    for index, name in enumerate(model_names()):
        created = make_agent(alice, bot, name=f"agent {index}", model=name)
        assert created["meta"]["model"] == name


def test_agent_update_accepts_every_catalogue_name(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    uuid = make_agent(alice, bot)["uuid"]
    for name in model_names():
        assert alice.ok(alice.post(f"/agent/{uuid}/update", {"model": name}))["meta"]["model"] == name
    assert alice.ok(alice.get(f"/agent/{uuid}"))["meta"]["model"] == model_names()[-1]


@pytest.mark.parametrize("name", ["gpt-4o-mini", "gpt-4o-mini-5k", "GPT-4O-MINI-4K", "gpt-4o-mini-4k "])
def test_a_name_outside_the_catalogue_is_refused_on_create_and_update(alice: Api, name: str) -> None:
    bot = alice.chatbot()["uuid"]
    uuid = make_agent(alice, bot)["uuid"]
    for response in (
        alice.post(f"/chatbot/{bot}/agent/create", {"name": "x", "type": "user-facing", "model": name}),
        alice.post(f"/agent/{uuid}/update", {"model": name}),
    ):
        error = assert_error(response, 422, "validation_error")
        assert [detail["field"] for detail in error["details"]] == ["model"], error
    assert alice.ok(alice.get(f"/agent/{uuid}"))["meta"]["model"] == DEFAULT_MODEL


def test_every_catalogue_name_resolves_to_a_provider_model() -> None:
    plain = ModelRegistry()
    for model in catalogue.MODELS:
        resolved = plain.resolve(model.name)
        assert resolved.provider_model == model.base
        assert model.name == f"{model.base}-{resolved.context_tokens // 1000}k"
    assert plain.resolve("gemini-2.5-flash-preview-thinking-128k").provider_model == "gemini-2.5-flash-preview-thinking"
    assert plain.resolve("claude-4.5-sonnet-128k").context_tokens == 128_000

    operated = ModelRegistry({"claude-4.5-sonnet-128k": "claude-sonnet-4-5"}, default_model="llama3.1:8b")
    assert operated.resolve("claude-4.5-sonnet-128k").provider_model == "claude-sonnet-4-5"
    assert {operated.resolve(name).provider_model for name in model_names() if name != "claude-4.5-sonnet-128k"} == {
        "llama3.1:8b"
    }


def test_an_unknown_name_in_the_operators_map_is_refused_with_the_nearest_names() -> None:
    with pytest.raises(ValueError, match="unknown catalogue") as refused:
        ModelRegistry({"claude-4.5-sonet-128k": "claude-sonnet-4-5"})
    assert "claude-4.5-sonnet-128k" in str(refused.value)
    assert "o4-mini-4k" not in str(refused.value), "not the whole catalogue"
