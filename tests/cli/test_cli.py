"""The command line, run as a real process against the suite's database."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from subprocess import DEVNULL

import httpx2 as httpx
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.keys import key_format as keys
from tests.support.api import Api
from tests.support.cli import botyard
from tests.support.cli import cli_env as _env
from tests.support.database import database_dump
from tests.support.processes import spawn, stop
from tests.support.servers import Server, running
from tests.support.waiting import START, wait_for


def test_key_create_prints_only_the_key_and_it_works(
    client: TestClient, settings: Settings, issued_keys: list[str]
) -> None:
    result = botyard(settings, "key", "create", "--email", "Carol@Example.com")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    key = lines[0]
    issued_keys.append(key)
    assert keys.is_well_formed(key)
    response = client.get("/api/v1/chatbots", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200
    assert response.json() == []


def test_key_list_and_revoke(client: TestClient, settings: Settings, issued_keys: list[str]) -> None:
    first = botyard(settings, "key", "create", "--email", "dave@example.com").stdout.strip()
    second = botyard(settings, "key", "create", "--email", "dave@example.com").stdout.strip()
    issued_keys.extend([first, second])
    listing = botyard(settings, "key", "list", "--email", "dave@example.com")
    assert listing.returncode == 0, listing.stderr
    rows = [line.split("\t") for line in listing.stdout.splitlines()]
    assert [row[0] for row in rows] == [keys.display_prefix(first), keys.display_prefix(second)]
    assert all(row[2] == "active" for row in rows)
    assert first not in listing.stdout

    revoked = botyard(settings, "key", "revoke", keys.display_prefix(first))
    assert revoked.returncode == 0, revoked.stderr
    states = [
        line.split("\t")[2]
        for line in botyard(settings, "key", "list", "--email", "dave@example.com").stdout.splitlines()
    ]
    assert states[0].startswith("revoked ")
    assert states[1] == "active"
    assert client.get("/api/v1/chatbots", headers={"Authorization": f"Bearer {first}"}).status_code == 401
    assert client.get("/api/v1/chatbots", headers={"Authorization": f"Bearer {second}"}).status_code == 200


def test_cli_errors_are_clear(client: TestClient, settings: Settings) -> None:
    unknown = botyard(settings, "key", "revoke", "by_nothing1")
    assert unknown.returncode != 0
    assert "No key with prefix" in unknown.stderr
    bad_email = botyard(settings, "key", "create", "--email", "not-an-email")
    assert bad_email.returncode != 0
    assert "Not an email address" in bad_email.stderr
    assert bad_email.stdout == ""


def test_migrate_is_idempotent(client: TestClient, settings: Settings) -> None:
    for _ in range(2):
        result = botyard(settings, "migrate")
        assert result.returncode == 0, result.stderr


def test_database_dump_sees_stored_text(client: TestClient, settings: Settings) -> None:
    """The plain-key check at the end of the suite reads the whole database; prove that it would see a key."""
    marker = "by_" + "Z" * 38
    result = botyard(settings, "account", "create", "--email", f"{marker}@example.com")
    assert result.returncode == 0, result.stderr
    assert marker.lower() in database_dump(settings)


def test_worker_processes_queued_sources(alice: Api, settings: Settings, tmp_path: Path) -> None:
    """`botyard worker` runs the jobs alone, next to an API that does not run them."""
    bot = alice.chatbot()["uuid"]
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "Who?", "answer": "Us."}))
    env = _env(settings) | {"BOTYARD_EMBEDDER": "none"}  # the job, not a cold load of the bundled model, is tested
    log = tmp_path / "worker.log"
    with log.open("w") as stderr:
        worker = spawn([sys.executable, "-m", "botyard", "worker"], env=env, stdout=DEVNULL, stderr=stderr)
    try:

        def processed() -> bool:
            return alice.ok(alice.get(f"/data-source/{created['uuid']}"))["status"] == "success"

        wait_for(processed, START, what="the worker processing the source", every=0.1)
        # SIGTERM (systemd, docker stop) stops it as Ctrl-C does: cleanly, and it says so.
        assert stop(worker, signal.SIGTERM), "the worker did not stop on SIGTERM"
        assert worker.returncode == 0 and "stopped" in log.read_text()
    finally:
        stop(worker)


def test_serve_migrates_a_fresh_data_dir_and_answers(tmp_path: Path) -> None:
    server = Server(Settings(data_dir=tmp_path / "fresh"))
    del server.env["BOTYARD_EMBEDDER"]  # the bundled model, as `botyard serve` runs out of the box
    key = server.key()
    with running(server):
        created = httpx.post(
            f"{server.base}/api/v1/chatbot/create", headers={"Authorization": f"Bearer {key}"}, json={"name": "served"}
        )
        assert created.status_code == 200
        assert created.json()["name"] == "served"
        assert (tmp_path / "fresh" / "botyard.sqlite3").exists()


def test_a_database_a_newer_version_migrated_is_refused_in_words(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "newer")
    assert botyard(settings, "migrate").returncode == 0
    with sqlite3.connect(settings.data_dir / "botyard.sqlite3") as connection:
        connection.execute("UPDATE alembic_version SET version_num = 'ffffffffffff'")
    for command in (["migrate"], ["key", "create", "--email", "new@example.com"]):
        result = botyard(settings, *command)
        assert result.returncode == 1
        assert "newer than this version of botyard" in result.stderr and "ffffffffffff" in result.stderr
        assert "Traceback" not in result.stderr


def test_the_command_line_loads_the_service_only_for_commands_that_need_it() -> None:
    # `botyard --help` took 2.4 s when cli.py imported FastAPI, SQLAlchemy and Alembic at the top.
    heavy = ("fastapi", "sqlalchemy", "alembic", "numpy", "tantivy", "uvicorn")
    probe = f"import sys, botyard.cli; print([m for m in {heavy!r} if m in sys.modules])"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert loaded.stdout.strip() == "[]"
    helped = subprocess.run([sys.executable, "-m", "botyard", "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "serve" in helped.stdout and "backup" in helped.stdout
