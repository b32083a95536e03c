"""Logs an operator can read: a timestamp, the level, the logger and the request id on every line (JSON lines on
request), and one warning line, not a traceback, for a failure that is expected (a user's URL that does not
resolve, a page that is gone); no credential on any line (a key in a query string, a header, a path)."""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from subprocess import DEVNULL

import httpx2 as httpx
import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from tests.support.api import Api
from tests.support.jobs import process
from tests.support.processes import spawn, stop, written_lines
from tests.support.servers import Server
from tests.support.sources import source
from tests.support.waiting import START, wait_for
from tests.support.web_site import WebSite

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


@pytest.fixture(scope="module")
def site() -> Iterator[WebSite]:
    server = WebSite()
    yield server
    server.close()


@pytest.fixture
def bot(alice: Api) -> str:
    uuid: str = alice.chatbot()["uuid"]
    return uuid


def _runner_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "botyard.jobs.runner"]


def test_a_url_that_does_not_resolve_is_a_warning_line_per_attempt_not_a_traceback(
    alice: Api, bot: str, caplog: pytest.LogCaptureFixture
) -> None:
    # One unreachable URL source logged five full tracebacks, one per attempt.
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": "http://nowhere.test/"}))
    with caplog.at_level(logging.INFO):
        process(alice.client)
    assert source(alice, created["uuid"])["status"] == "error:dns failure"
    lines = _runner_lines(caplog)
    assert lines, "the failure was not logged"
    assert all(record.levelno == logging.WARNING and record.exc_info is None for record in lines)
    assert all("dns failure" in record.getMessage() and created["uuid"] in record.getMessage() for record in lines)
    assert "gave up" in lines[-1].getMessage()
    assert "Traceback" not in caplog.text


def test_a_page_that_is_gone_is_one_warning_line(
    alice: Api, bot: str, site: WebSite, caplog: pytest.LogCaptureFixture
) -> None:
    # A failure retrying cannot fix used to leave no line at all: the operator never learnt why the source failed.
    created = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": site.url("/gone")}))
    with caplog.at_level(logging.INFO):
        process(alice.client)
    assert source(alice, created["uuid"])["status"] == "error:http 404"
    [line] = _runner_lines(caplog)
    assert line.levelno == logging.WARNING and line.exc_info is None
    assert "http 404" in line.getMessage() and created["uuid"] in line.getMessage()
    assert "process_source" in line.getMessage()


def test_the_request_id_is_echoed(client: TestClient) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": "lb-7f3a.42"})
    assert response.headers["x-request-id"] == "lb-7f3a.42"
    made = client.get("/healthz").headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert client.get("/healthz").headers["x-request-id"] != made


@pytest.mark.parametrize("sent", ["x" * 200, "a b", "id\x01with-control", "line\tbreak", ""])
def test_a_request_id_that_is_not_sane_is_replaced(client: TestClient, sent: str) -> None:
    # It goes into every log line of the request and back into a header: no spaces, controls or novels.
    response = client.get("/healthz", headers={"X-Request-ID": sent})
    assert re.fullmatch(r"[0-9a-f]{32}", response.headers["x-request-id"])


def _serve(tmp_path: Path, log_format: str, *arguments: str) -> tuple[Server, Path]:
    """A real `botyard serve` with an account (so it prints no set-up link), its stderr in a file."""
    server = Server(Settings(data_dir=tmp_path / "data"))
    server.env |= {"BOTYARD_LOG_FORMAT": log_format}
    server.key()
    stderr = tmp_path / "stderr.log"
    with stderr.open("wb") as sink:
        server.start(*arguments, wait=False, stderr=sink)
    return server, stderr


def _requests(server: Server) -> None:
    try:
        server.wait_ready()
        assert httpx.get(f"{server.base}/healthz", headers={"X-Request-ID": "probe-1"}).status_code == 200
        assert httpx.get(f"{server.base}/api/v1/chatbots").status_code == 401
    finally:
        server.stop()


def test_text_lines_have_a_timestamp_level_logger_and_request_id(tmp_path: Path) -> None:
    server, stderr = _serve(tmp_path, "text")
    _requests(server)
    lines = stderr.read_text().splitlines()
    # uvicorn's access lines had no timestamp: "INFO:     127.0.0.1:50312 - "GET /healthz HTTP/1.1" 200".
    access = [line for line in lines if "probe-1" in line]  # wait_ready's own requests have ids of their own
    assert len(access) == 1
    assert re.fullmatch(
        STAMP + r' INFO uvicorn\.access \[probe-1\] 127\.0\.0\.1:\d+ - "GET /healthz HTTP/1\.1" 200', access[0]
    )
    [made] = [line for line in lines if "GET /api/v1/chatbots" in line]
    assert re.match(STAMP + r" INFO uvicorn\.access \[[0-9a-f]{32}\] ", made)
    started = [line for line in lines if "Application startup complete" in line]
    assert re.fullmatch(STAMP + r" INFO uvicorn\.error \[-\] Application startup complete\.", started[0])


def test_json_lines_are_one_object_each(tmp_path: Path) -> None:
    server, stderr = _serve(tmp_path, "json", "--workers", "2")
    _requests(server)
    lines = [line for line in stderr.read_text().splitlines() if line.strip()]
    assert lines
    entries = [json.loads(line) for line in lines]  # every line, the supervisor's and the workers'
    assert all({"time", "level", "logger", "request_id", "message"} <= set(entry) for entry in entries)
    assert all(re.fullmatch(STAMP, entry["time"]) for entry in entries)
    [access] = [entry for entry in entries if entry["request_id"] == "probe-1"]
    assert "GET /healthz" in access["message"]
    assert access["logger"] == "uvicorn.access" and access["level"] == "INFO" and access["request_id"] == "probe-1"


@pytest.mark.parametrize(("log_format", "arguments"), [("text", ()), ("json", ("--workers", "2"))])
def test_no_credential_reaches_the_log(tmp_path: Path, log_format: str, arguments: tuple[str, ...]) -> None:
    """A key sent in the query string (`?api_key=`) was written to the access log as it came. Credentials in query
    strings, headers and paths: none is in the server's output, in either format, the supervisor's included."""
    server, stderr = _serve(tmp_path, log_format, *arguments)
    secrets = {"code": "oidc-code-6f1d2c", "state": "oidc-state-9a8b7c", "password": "hunter2-password-q"}
    api = f"{server.base}/api/v1"
    try:
        server.wait_ready()
        key = server.key()  # a real key: the requests that carry it are let through, and logged
        with httpx.Client(timeout=30) as client:
            assert client.get(f"{api}/chatbots?api_key={key}").status_code in (200, 401)
            client.get(f"{api}/chatbots?page=1&key={key}&access_token={key}", headers={"X-Request-ID": "probe-2"})
            assert client.get(f"{api}/chatbots", headers={"Authorization": f"Bearer {key}"}).status_code == 200
            client.get(f"{api}/chatbots", headers={"X-Api-Key": key, "Cookie": f"botyard_session={key}"})
            client.get(f"{api}/chatbot/{key}")  # a key pasted where a uuid goes
            client.get(f"{api}/auth/sso/callback?code={secrets['code']}&state={secrets['state']}")
            client.post(f"{api}/auth/sign-in?password={secrets['password']}", json={"email": "a@example.com"})
    finally:
        server.stop()
    text = stderr.read_text()
    leaked = [name for name, value in {"the API key": key, **secrets}.items() if value in text]
    assert not leaked, leaked
    [probe] = [line for line in text.splitlines() if "probe-2" in line]
    assert "GET /api/v1/chatbots?page=1&key=[redacted]&access_token=[redacted] HTTP/1.1" in probe


def test_redact_hides_credentials_and_keeps_the_rest() -> None:
    from botyard.logs import redact

    assert redact("GET /x?page=2&api_key=k1&state=s#top") == "GET /x?page=2&api_key=[redacted]&state=[redacted]#top"
    assert (
        redact("/cb?zipcode=123&code=c&visitor_key=v;sig=q")
        == "/cb?zipcode=123&code=[redacted]&visitor_key=[redacted];sig=[redacted]"
    )
    assert redact("Authorization: Bearer sk-1.a/b") == "Authorization: Bearer [redacted]"
    assert (
        redact("fetch https://bob:pw@example.com:8080/a failed") == "fetch https://[redacted]@example.com:8080/a failed"
    )
    assert redact("key by_" + "A1" * 19 + " used") == "key by_[redacted] used"
    assert redact('"GET /healthz HTTP/1.1" 200 at 10:30') == '"GET /healthz HTTP/1.1" 200 at 10:30'


def test_a_traceback_stays_for_a_bug_and_is_a_field_of_its_json_line() -> None:
    from botyard.logs import JsonFormatter, TextFormatter

    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        record = logging.getLogger("botyard.test").makeRecord(
            "botyard.test", logging.ERROR, __file__, 1, "job %s failed", ("j1",), sys.exc_info()
        )
    entry = json.loads(JsonFormatter().format(record))
    assert entry["message"] == "job j1 failed" and entry["request_id"] is None
    assert "Traceback" in entry["exc_info"] and "RuntimeError: a bug" in entry["exc_info"]
    text = TextFormatter().format(record)
    assert re.match(STAMP + r" ERROR botyard\.test \[-\] job j1 failed\nTraceback", text)


def test_the_settings_read_any_case() -> None:
    settings = Settings(log_format="JSON", log_level="warning")  # type: ignore[arg-type]
    assert (settings.log_format, settings.log_level) == ("json", "WARNING")


def test_botyard_worker_writes_the_same_lines(tmp_path: Path) -> None:
    server = Server(Settings(data_dir=tmp_path / "data"))
    server.env |= {"BOTYARD_LOG_FORMAT": "json"}
    stderr = tmp_path / "stderr.log"
    with stderr.open("wb") as sink:
        worker = spawn([sys.executable, "-m", "botyard", "worker"], env=server.env, stdout=DEVNULL, stderr=sink)
    try:
        lines = wait_for(lambda: written_lines(stderr), START, what="the worker's first log line", every=0.1)
    finally:
        stop(worker)  # SIGTERM, then SIGKILL: a worker started without a terminal ignores SIGINT
    entry = json.loads(lines[0])  # it used to say so in a plain line of its own
    assert entry["logger"] == "botyard.worker" and entry["message"].startswith("worker ")
