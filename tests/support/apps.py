"""Apps built for one test: the app on a fresh database with its own LLM server or clock."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from botyard.main import create_app
from tests.support.database import fresh_settings
from tests.support.fake_dns import FakeDns


@contextmanager
def llm_app(backend: str, data_dir: Path, llm_url: str, **overrides: Any) -> Iterator[TestClient]:
    """A test client of the app on a new database of `backend`, answering with the LLM server at `llm_url` (the fake
    one), keyword search only, jobs run only where a test runs them."""
    settings_overrides: dict[str, Any] = {
        "jobs_in_process": False,
        "embedder": "none",
        "llm_base_url": llm_url,
        "llm_api_key": "sk-test-key",
        **overrides,
    }
    with (
        fresh_settings(backend, data_dir, **settings_overrides) as settings,
        TestClient(create_app(settings, resolver=FakeDns()), raise_server_exceptions=False) as client,
    ):
        yield client
