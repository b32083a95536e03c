"""The model's API key goes only to the base URL it was saved with (issue 46 item 5): an admin who tests or saves
another base URL without giving the key in the same request is refused (422 `llm_api_key_required`), and the
server of their choice never receives the saved key, nor the environment's `BOTYARD_LLM_API_KEY`. Each server here
is a loopback receiver that records the `Authorization` header it gets."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.identity.accounts.service import issue_key
from botyard.main import create_app
from tests.support.api import Api, assert_error
from tests.support.database import Db, backend_params, fresh_settings
from tests.support.fake_dns import FakeDns
from tests.support.fake_llm import FakeLlm, Reply

KEY = "sk-saved-0123456789abcdefWXYZ"
ENV_KEY = "sk-environment-9876543210zyxwQRST"
OTHER_KEY = "sk-attacker-own-key-00000000"


@pytest.fixture(scope="module", params=backend_params())
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _owner(backend: str, data_dir: Path, stack: ExitStack, **environment: Any) -> Api:
    """The instance's first account's API key, on an app whose environment sets `environment` (and a locked
    default model, so the test asks one name)."""
    overrides: dict[str, Any] = {"jobs_in_process": False, "embedder": "none", "llm_default_model": "env-model"}
    settings = stack.enter_context(fresh_settings(backend, data_dir, **overrides, **environment))
    client = stack.enter_context(TestClient(create_app(settings, resolver=FakeDns()), raise_server_exceptions=False))
    return Api(client, Db(client).run(lambda session: issue_key(session, "owner@example.com")).key)


@pytest.fixture
def servers() -> Iterator[tuple[FakeLlm, FakeLlm]]:
    """The model's server, and another one an admin points the settings at."""
    with FakeLlm(Reply(tokens=("Here.",))) as model, FakeLlm(Reply(tokens=("Thanks for the key.",))) as elsewhere:
        yield model, elsewhere


def received(server: FakeLlm) -> list[str]:
    return [request.headers.get("authorization", "") for request in server.requests]


def llm_settings(api: Api) -> dict[str, Any]:
    view = api.ok(api.get("/service/settings"))
    return {entry["name"]: entry for entry in view["settings"] if entry["section"] == "llm"}


def test_the_saved_key_goes_only_to_its_own_base_url(
    backend: str, tmp_path: Path, servers: tuple[FakeLlm, FakeLlm]
) -> None:
    model, elsewhere = servers
    with ExitStack() as stack:
        owner = _owner(backend, tmp_path, stack)
        owner.ok(owner.post("/service/settings", {"llm_base_url": model.url, "llm_api_key": KEY}))
        assert owner.ok(owner.post("/service/settings/llm/test", {}))["ok"] is True
        assert received(model) == [f"Bearer {KEY}"]
        before = llm_settings(owner)

        for path in ("/service/settings/llm/test", "/service/settings"):
            refused = assert_error(owner.post(path, {"llm_base_url": elsewhere.url}), 422, "llm_api_key_required")
            assert "llm_api_key" in refused["error"] and KEY not in str(refused)
        assert received(elsewhere) == []
        assert llm_settings(owner) == before  # nothing saved

        # With a key of their own the admin may test or save that server: it gets that key, never the saved one.
        own_key = {"llm_base_url": elsewhere.url, "llm_api_key": OTHER_KEY}
        tried = owner.ok(owner.post("/service/settings/llm/test", own_key))
        assert tried["ok"] is True and received(elsewhere) == [f"Bearer {OTHER_KEY}"]
        owner.ok(owner.post("/service/settings", {"llm_base_url": model.url + "/"}))  # its own, a slash aside

        # The base URL emptied (the offline answerer sends the key nowhere) and set again: still bound to the old one.
        owner.ok(owner.post("/service/settings", {"llm_base_url": None}))
        assert_error(owner.post("/service/settings", {"llm_base_url": elsewhere.url}), 422, "llm_api_key_required")
        owner.ok(owner.post("/service/settings", {"llm_base_url": model.url}))
        # Saved with a new key, the new URL is the key's own from then on.
        owner.ok(owner.post("/service/settings", {"llm_base_url": elsewhere.url, "llm_api_key": OTHER_KEY}))
        assert owner.ok(owner.post("/service/settings/llm/test", {}))["ok"] is True
        back = owner.post("/service/settings/llm/test", {"llm_base_url": model.url})
        assert_error(back, 422, "llm_api_key_required")
        assert received(elsewhere) == [f"Bearer {OTHER_KEY}"] * 2 and received(model) == [f"Bearer {KEY}"]


def test_the_environments_key_goes_only_where_its_sender_knows_it(
    backend: str, tmp_path: Path, servers: tuple[FakeLlm, FakeLlm]
) -> None:
    """`BOTYARD_LLM_API_KEY` set, the base URL left to the page: saving or testing a base URL needs the key given as
    its own value (a proof, not saved; the key stays the environment's)."""
    model, elsewhere = servers
    with ExitStack() as stack:
        owner = _owner(backend, tmp_path, stack, llm_api_key=ENV_KEY)
        for path in ("/service/settings/llm/test", "/service/settings"):
            assert_error(owner.post(path, {"llm_base_url": elsewhere.url}), 422, "llm_api_key_required")
            wrong = {"llm_base_url": elsewhere.url, "llm_api_key": OTHER_KEY}
            assert_error(owner.post(path, wrong), 409, "setting_locked")  # another key: still the environment's
        assert received(elsewhere) == [] and llm_settings(owner)["llm_base_url"]["value"] is None

        owner.ok(owner.post("/service/settings", {"llm_base_url": model.url, "llm_api_key": ENV_KEY}))
        shown = llm_settings(owner)
        assert shown["llm_base_url"]["value"] == model.url and shown["llm_api_key"]["source"] == "environment"
        assert owner.ok(owner.post("/service/settings/llm/test", {}))["ok"] is True
        assert received(model) == [f"Bearer {ENV_KEY}"]
        owner.ok(owner.post("/service/settings", {"cors_origins": ["https://shop.example"]}))  # the binding stays
        for path in ("/service/settings/llm/test", "/service/settings"):
            assert_error(owner.post(path, {"llm_base_url": elsewhere.url}), 422, "llm_api_key_required")
        assert received(elsewhere) == []
