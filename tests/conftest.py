"""Fixtures: the app on a real database (SQLite always; PostgreSQL when BOTYARD_TEST_POSTGRES_URL is set; for the
test packages that exercise search, also PostgreSQL with pgvector when BOTYARD_TEST_PGVECTOR_URL is set).

Each backend gets one migrated database for the whole run (PostgreSQL: a fresh database created for the run and
dropped after it), one app served through Starlette's TestClient, and empty tables before every test. The suite runs
in parallel (pytest-xdist): "the whole run" is one worker's share, so each worker has databases, data directories and
loopback ports of its own. Helpers the tests import live in `tests/support/`; this file only defines fixtures.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.main import create_app
from tests.support.api import Api
from tests.support.database import EMBEDDED_ONLY, SEARCH_PACKAGES, Db, backend_params, database_dump, fresh_settings
from tests.support.fake_dns import FakeDns
from tests.support.fake_llm import FakeLlm, Reply

TESTS = Path(__file__).parent


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: a worker per core and one more, since much of the suite waits on servers and child processes
    rather than computing."""
    return (os.cpu_count() or 1) + 1


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The backends of the session's `settings`, and so of every fixture on it: "sqlite" and "postgres" for every
    test, and "pgvector" too for those of the search packages (tests/<package>/ for each of SEARCH_PACKAGES). A
    test that parametrizes a `settings` argument of its own is left to it."""
    if "settings" not in metafunc.fixturenames or _parametrizes(metafunc, "settings"):
        return
    parts = metafunc.definition.path.relative_to(TESTS).parts
    searches = parts[0] in SEARCH_PACKAGES and "/".join(parts[:2]) not in EMBEDDED_ONLY
    backends = backend_params(pgvector=searches)
    metafunc.parametrize("settings", backends, indirect=True, scope="session")


def _parametrizes(metafunc: pytest.Metafunc, name: str) -> bool:
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs["argnames"]
        if name in ([part.strip() for part in names.split(",")] if isinstance(names, str) else names):
            return True
    return False


@pytest.fixture(scope="session")
def settings(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    # Jobs run only where a test runs them (no background runner racing the assertions); the loopback web servers
    # of the ingestion tests are allowlisted, as a self-hoster would allowlist an intranet.
    common: dict[str, Any] = {"jobs_in_process": False, "egress_allowlist": ["127.0.0.1"]}
    with fresh_settings(request.param, tmp_path_factory.mktemp("botyard-data"), **common) as settings:
        yield settings


@pytest.fixture(scope="session")
def issued_keys() -> list[str]:
    """Every API key the suite issued on this backend; none may ever be found in plain text in the database."""
    return []


@pytest.fixture(scope="session")
def fake_dns() -> FakeDns:
    return FakeDns()


@pytest.fixture(scope="session")
def app_client(settings: Settings, issued_keys: list[str], fake_dns: FakeDns) -> Iterator[TestClient]:
    with TestClient(create_app(settings, resolver=fake_dns), raise_server_exceptions=False) as client:
        yield client
    # After the whole suite on this backend: no issued key is stored in plain text anywhere in the database.
    leaked = [key for key in issued_keys if key in database_dump(settings)]
    assert not leaked, f"{len(leaked)} API keys found in plain text in the database"


@pytest.fixture
def db(app_client: TestClient) -> Db:
    return Db(app_client)


@pytest.fixture
def client(app_client: TestClient, db: Db, fake_dns: FakeDns) -> TestClient:
    db.wipe()
    fake_dns.reset()
    return app_client


@pytest.fixture
def make_api(client: TestClient, db: Db, issued_keys: list[str]) -> Callable[[str], Api]:
    def make(email: str) -> Api:
        issued = db.run(lambda session: issue_key(session, email))
        issued_keys.append(issued.key)
        return Api(client, issued.key)

    return make


@pytest.fixture
def alice(make_api: Callable[[str], Api]) -> Api:
    return make_api("alice@example.com")


@pytest.fixture
def bob(make_api: Callable[[str], Api]) -> Api:
    return make_api("bob@example.com")


@pytest.fixture
def sample_dir() -> Path:
    return Path(__file__).parent / "samples"


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLlm]:
    """A fake model answering three words, one per test module that asks for it (a module may define its own)."""
    with FakeLlm(Reply.words(3)) as server:
        yield server
