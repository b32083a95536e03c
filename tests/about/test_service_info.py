"""`GET /api/v1/service`: which answerer and embedder the service runs, offline and with a language model, and never
the model API's key or the rest of its URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from botyard.about.service import host_of
from botyard.identity.accounts.service import issue_key
from tests.support.api import Api, assert_error
from tests.support.apps import llm_app
from tests.support.database import Db
from tests.support.fake_llm import FakeLlm, Reply


def test_offline(alice: Api) -> None:
    info = alice.ok(alice.get("/service"))
    assert info == {
        "version": info["version"],
        "answerer": "offline",
        "llm_host": None,
        "llm_models": {},
        "llm_default_model": None,
        "public_url": "http://localhost:8000",
        "embedder": "multilingual",
        "embedder_model": info["embedder_model"],
    }
    assert info["version"] and info["embedder_model"].startswith("minilm")
    assert_error(alice.client.get("/api/v1/service"), 401, "unauthorized")


def test_with_a_language_model(tmp_path: Path) -> None:
    models = {"gpt-4o-mini-4k": "llama3.1:8b"}
    with (
        FakeLlm(Reply.words(3)) as llm,
        llm_app("sqlite", tmp_path, llm.url, llm_models=models, llm_default_model="qwen2.5:7b") as client,
    ):
        key = Db(client).run(lambda session: issue_key(session, "owner@example.com")).key
        info = Api(client, key).ok(Api(client, key).get("/service"))
        port = llm.url.split(":")[2].split("/")[0]
        assert info["answerer"] == "llm"
        assert info["llm_host"] == f"127.0.0.1:{port}"
        assert info["llm_models"] == models and info["llm_default_model"] == "qwen2.5:7b"
        assert "sk-test-key" not in str(info)
        assert (info["embedder"], info["embedder_model"]) == ("none", None)  # this app searches by keywords only


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://api.openai.com/v1", "api.openai.com"),
        ("http://user:secret@llm.internal:8080/v1?key=sk-123", "llm.internal:8080"),
        ("http://[::1]:11434/v1", "[::1]:11434"),
        ("not a url", ""),
    ],
)
def test_only_the_host_is_shown(url: str, host: str) -> None:
    assert host_of(url) == host
